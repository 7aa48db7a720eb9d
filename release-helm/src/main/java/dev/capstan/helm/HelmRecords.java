package dev.capstan.helm;

import dev.capstan.common.BoundedInput;
import dev.capstan.common.Escapes;
import dev.capstan.common.InputLimits;
import dev.capstan.common.InvalidDocumentException;
import dev.capstan.common.StrictDocuments;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.GZIPInputStream;
import org.jspecify.annotations.Nullable;

/**
 * Decodes Helm release records, without side effects: base64, then gzip (Helm also reads records
 * that are not compressed, and so does this), then JSON, each step bounded by {@link HelmLimits}.
 * Helm 3 and Helm 4 write the same storage format, {@code v1}: records named {@code
 * sh.helm.release.v1.RELEASE.vREVISION}, Secrets of type {@code helm.sh/release.v1}, labelled
 * {@code owner=helm}. Any other format version is refused, as is a record whose JSON disagrees with
 * its name. Only what {@code helm history} shows, the manifest and the hooks are read; the chart's
 * templates and values are skipped.
 */
public final class HelmRecords {
  /** The only storage format version Helm 3 and 4 write. */
  public static final String FORMAT = "v1";

  /** The Secret type of Helm's records. */
  public static final String SECRET_TYPE = "helm.sh/release.v1";

  /** The label Helm puts on every record: {@code owner=helm}. */
  public static final String OWNER_LABEL = "owner";

  private static final Pattern NAME =
      Pattern.compile("sh\\.helm\\.release\\.(v[0-9]+)\\.(.+)\\.v([0-9]+)");

  /** Records by name, a Secret before a ConfigMap of the same name: one order for messages. */
  private static final Comparator<HelmRecord> ORDER =
      Comparator.comparing(HelmRecord::name).thenComparing(HelmRecord::driver);

  private HelmRecords() {}

  /**
   * Decodes every record of one release into its revisions, oldest first.
   *
   * @param namespace the release namespace
   * @param release the release name
   * @param records the records found for it (any order)
   * @param limits the bounds
   * @return the revisions, by revision number
   * @throws HelmRecordException for the first record that cannot be read, or when two records hold
   *     the same revision
   */
  public static List<HelmRevision> history(
      String namespace, String release, List<HelmRecord> records, HelmLimits limits) {
    List<HelmRevision> out = new ArrayList<>();
    Map<Integer, HelmRecord> seen = new HashMap<>();
    for (HelmRecord record : records.stream().sorted(ORDER).toList()) {
      HelmRevision revision = decode(record, limits);
      if (!revision.release().equals(release) || !revision.namespace().equals(namespace)) {
        throw new HelmRecordException(
            record.describe(),
            "holds release "
                + Escapes.quote(revision.namespace() + "/" + revision.release())
                + ", not "
                + namespace
                + "/"
                + release);
      }
      HelmRecord twin = seen.putIfAbsent(revision.revision(), record);
      if (twin != null) {
        throw new HelmRecordException(
            record.describe(),
            "revision " + revision.revision() + " is also held by " + twin.describe());
      }
      out.add(revision);
    }
    out.sort(Comparator.comparingInt(HelmRevision::revision));
    return List.copyOf(out);
  }

  /**
   * Decodes one record.
   *
   * @param record the record as stored
   * @param limits the bounds
   * @return the revision it holds
   * @throws HelmRecordException naming the record and the rule it breaks
   */
  public static HelmRevision decode(HelmRecord record, HelmLimits limits) {
    String what = record.describe();
    Matcher name = NAME.matcher(record.name());
    if (!name.matches()) {
      throw new HelmRecordException(what, "the name must be sh.helm.release.v1.RELEASE.vREVISION");
    }
    if (!FORMAT.equals(name.group(1))) {
      throw unknownFormat(what, "the name says storage format " + name.group(1));
    }
    if (record.driver() == HelmRecord.Driver.SECRET && !SECRET_TYPE.equals(record.type())) {
      throw unknownFormat(what, "the Secret's type is " + Escapes.quote(record.type()));
    }
    int nameRevision = revisionNumber(what, name.group(3));
    String data = record.data();
    if (data == null) {
      throw new HelmRecordException(what, "has no release data (key 'release')");
    }
    if (data.length() > limits.maxEncodedBytes()) {
      throw new HelmRecordException(
          what,
          "the release data is "
              + data.length()
              + " bytes encoded; the limit is "
              + limits.maxEncodedBytes()
              + " bytes ("
              + InputLimits.human(limits.maxEncodedBytes())
              + ")");
    }
    byte[] packed;
    try {
      packed = Base64.getDecoder().decode(data.strip());
    } catch (IllegalArgumentException e) {
      throw new HelmRecordException(what, "the release data is not base64: " + e.getMessage());
    }
    byte[] json = inflate(what, packed, limits);
    Map<?, ?> tree;
    try {
      Object parsed = StrictDocuments.readJson(StrictDocuments.decode(json), limits.json());
      if (!(parsed instanceof Map<?, ?> map)) {
        throw new HelmRecordException(what, "the release JSON must be an object");
      }
      tree = map;
    } catch (InvalidDocumentException e) {
      throw new HelmRecordException(what, "the release JSON: " + e.getMessage());
    }
    return revision(record, tree, nameRevision);
  }

  private static HelmRecordException unknownFormat(String what, String found) {
    return new HelmRecordException(
        what,
        found
            + "; only storage format "
            + FORMAT
            + " (sh.helm.release.v1, Secret type "
            + SECRET_TYPE
            + ", written by Helm 3 and 4) is read");
  }

  private static int revisionNumber(String what, String digits) {
    try {
      int n = Integer.parseInt(digits);
      if (n >= 1) {
        return n;
      }
    } catch (NumberFormatException e) {
      // too large: refused below
    }
    throw new HelmRecordException(
        what, "the revision in the name must be a number from 1 to " + Integer.MAX_VALUE);
  }

  /** Undoes gzip when the data starts with gzip's magic bytes, as Helm does. */
  private static byte[] inflate(String what, byte[] packed, HelmLimits limits) {
    if (packed.length < 3
        || (packed[0] & 0xff) != 0x1f
        || (packed[1] & 0xff) != 0x8b
        || packed[2] != 8) {
      if (packed.length > limits.maxInflatedBytes()) {
        throw new HelmRecordException(
            what,
            "the release JSON is larger than "
                + InputLimits.human(limits.maxInflatedBytes())
                + " (the limit)");
      }
      return packed;
    }
    try (InputStream in = new GZIPInputStream(new ByteArrayInputStream(packed))) {
      return BoundedInput.read(in, "the release data inflated", limits.maxInflatedBytes());
    } catch (InvalidDocumentException e) {
      throw new HelmRecordException(what, e.getMessage());
    } catch (IOException e) {
      throw new HelmRecordException(
          what, "the release data is not valid gzip (truncated or corrupt)");
    }
  }

  private static HelmRevision revision(HelmRecord record, Map<?, ?> tree, int nameRevision) {
    String what = record.describe();
    Fields f = new Fields(what, tree);
    String release = f.text("name");
    String namespace = f.text("namespace");
    int revision = f.number("version");
    if (revision != nameRevision) {
      throw new HelmRecordException(
          what,
          "field version is " + revision + ", but the record's name says revision " + nameRevision);
    }
    Fields info = f.object("info");
    HelmStatus status;
    String wireStatus = info.text("status");
    try {
      status = HelmStatus.fromWire(wireStatus);
    } catch (IllegalArgumentException e) {
      throw new HelmRecordException(what, "field info.status " + e.getMessage());
    }
    Fields chartMeta = f.object("chart").object("metadata");
    List<HelmHook> hooks = new ArrayList<>();
    List<Fields> hookFields = f.objects("hooks");
    for (Fields hook : hookFields) {
      hooks.add(
          new HelmHook(
              hook.text("name"),
              hook.text("kind"),
              hook.optionalText("path", ""),
              hook.optionalText("manifest", ""),
              hook.texts("events")));
    }
    return new HelmRevision(
        record,
        release,
        namespace,
        revision,
        status,
        chartMeta.text("name"),
        chartMeta.text("version"),
        emptyToNull(chartMeta.optionalText("appVersion", "")),
        info.optionalText("description", ""),
        info.time("first_deployed"),
        info.time("last_deployed"),
        f.optionalText("manifest", ""),
        hooks);
  }

  private static @Nullable String emptyToNull(String s) {
    return s.isEmpty() ? null : s;
  }

  /** Reads fields of one JSON object, naming the path in every problem. */
  private static final class Fields {
    private final String what;
    private final String path;
    private final Map<?, ?> tree;

    Fields(String what, Map<?, ?> tree) {
      this(what, "", tree);
    }

    private Fields(String what, String path, Map<?, ?> tree) {
      this.what = what;
      this.path = path;
      this.tree = tree;
    }

    private String at(String key) {
      return path + key;
    }

    private HelmRecordException bad(String key, String rule, @Nullable Object value) {
      return new HelmRecordException(
          what, "field " + at(key) + " must be " + rule + ": " + shape(value));
    }

    String text(String key) {
      Object value = tree.get(key);
      if (value instanceof String s && !s.isEmpty()) {
        return s;
      }
      throw bad(key, "a non-empty string", value);
    }

    String optionalText(String key, String fallback) {
      Object value = tree.get(key);
      if (value == null) {
        return fallback;
      }
      if (value instanceof String s) {
        return s;
      }
      throw bad(key, "a string", value);
    }

    int number(String key) {
      Object value = tree.get(key);
      if (value instanceof Integer n && n >= 1) {
        return n;
      }
      throw bad(key, "a whole number from 1", value);
    }

    Fields object(String key) {
      Object value = tree.get(key);
      if (value instanceof Map<?, ?> map) {
        return new Fields(what, at(key) + ".", map);
      }
      throw bad(key, "an object", value);
    }

    List<Fields> objects(String key) {
      Object value = tree.get(key);
      if (value == null) {
        return List.of();
      }
      if (!(value instanceof List<?> list)) {
        throw bad(key, "a list of objects", value);
      }
      List<Fields> out = new ArrayList<>();
      for (int i = 0; i < list.size(); i++) {
        if (!(list.get(i) instanceof Map<?, ?> map)) {
          throw bad(key + "[" + i + "]", "an object", list.get(i));
        }
        out.add(new Fields(what, at(key) + "[" + i + "].", map));
      }
      return out;
    }

    List<String> texts(String key) {
      Object value = tree.get(key);
      if (value == null) {
        return List.of();
      }
      if (value instanceof List<?> list && list.stream().allMatch(String.class::isInstance)) {
        return list.stream().map(String.class::cast).toList();
      }
      throw bad(key, "a list of strings", value);
    }

    /** A Go time in RFC 3339; Helm writes a zero time as {@code ""}. */
    @Nullable Instant time(String key) {
      String text = optionalText(key, "");
      if (text.isEmpty()) {
        return null;
      }
      try {
        return OffsetDateTime.parse(text).toInstant();
      } catch (DateTimeParseException e) {
        throw bad(key, "an RFC 3339 time", text);
      }
    }

    /** A value for a message: short scalars quoted, anything else by its shape only. */
    private static String shape(@Nullable Object value) {
      if (value == null) {
        return "missing";
      }
      if (value instanceof Map<?, ?>) {
        return "an object";
      }
      if (value instanceof List<?>) {
        return "a list";
      }
      String text = String.valueOf(value);
      return text.length() > 64
          ? "a value of " + text.length() + " characters"
          : Escapes.quote(text);
    }
  }
}
