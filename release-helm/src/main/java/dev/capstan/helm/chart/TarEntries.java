package dev.capstan.helm.chart;

import dev.capstan.common.Escapes;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The entries of a tar stream as Go's {@code archive/tar} reads them, so as Helm reads a packaged
 * chart: each header's checksum checked; the name from the USTAR or star prefix and the name field
 * (GNU and V7 headers have no prefix), replaced by a PAX {@code path} record and then by a GNU long
 * name; the size from the header or a PAX {@code size} record, in octal or base-256; no data for
 * links, devices, FIFOs and folders, whatever their size field says. Go and this reader then agree
 * on every entry's name and bytes. What Go reads in a way this reader does not (sparse files) is
 * refused. Bounded by a {@link Budget} of bytes read.
 */
final class TarEntries {
  /** The most bytes of a PAX header or GNU long name: Go's limit. */
  private static final int MAX_SPECIAL = 1 << 20;

  /**
   * One entry.
   *
   * @param name its path as Go reads it (its bytes read as UTF-8)
   * @param file whether it has content of its own: neither a folder nor a link nor a device
   */
  record Entry(String name, boolean file) {}

  /** The bytes that one chart's archives may still unpack to, shared by archives inside it. */
  static final class Budget {
    private final long max;
    private long left;

    Budget(long max) {
      this.max = max;
      this.left = max;
    }

    void take(long n) throws IOException {
      left -= n;
      if (left < 0) {
        throw new IOException("it unpacks to more than " + (max >> 20) + " MiB");
      }
    }
  }

  private final InputStream in;
  private final Budget budget;
  private final byte[] block = new byte[512];
  private long remaining;
  private long padding;

  TarEntries(InputStream in, Budget budget) {
    this.in = in;
    this.budget = budget;
  }

  /** The next entry, the rest of the current one's data skipped; {@code null} at the end. */
  @Nullable Entry next() throws IOException {
    skip(remaining);
    remaining = 0;
    if (!pad(padding)) {
      return null;
    }
    padding = 0;
    Map<String, String> pax = Map.of();
    String longName = "";
    while (true) {
      if (!readBlock()) {
        return null;
      }
      if (zero(block)) {
        if (!readBlock() || zero(block)) {
          return null;
        }
        throw new IOException("a zero block is followed by a header");
      }
      int prefix = prefixLength();
      char type = (char) (block[156] & 0xff);
      String name = text(block, 0, 100);
      if (prefix > 0) {
        String before = text(block, 345, prefix);
        if (!before.isEmpty()) {
          name = before + "/" + name;
        }
      }
      long size = numeric(block, 124, 12);
      if (type == 'x' || type == 'g') {
        byte[] bytes = special(size);
        if (!pad(-size & 511)) {
          return null;
        }
        Map<String, String> records = paxRecords(bytes);
        // a global header is an entry of its own to Go, which starts the next one afresh
        pax = type == 'x' ? records : Map.of();
        longName = type == 'x' ? longName : "";
        continue;
      }
      if (type == 'L' || type == 'K') {
        String text = cString(special(size));
        if (!pad(-size & 511)) {
          return null;
        }
        longName = type == 'L' ? text : longName;
        continue;
      }
      if (type == 'S' || pax.keySet().stream().anyMatch(k -> k.startsWith("GNU.sparse."))) {
        throw new IOException(
            "it holds a sparse file, which Capstan does not read: " + Escapes.quote(name));
      }
      name = pax.getOrDefault("path", name);
      if (pax.containsKey("size")) {
        size = decimal(pax.get("size"));
      }
      if (!longName.isEmpty()) {
        name = longName;
      }
      boolean headerOnly =
          "123456".indexOf(type) >= 0 || (type == '\0' && name.endsWith("/")); // a folder
      long data = headerOnly ? 0 : size;
      if (data < 0) {
        throw new IOException("an entry's size is negative: " + Escapes.quote(name));
      }
      remaining = data;
      padding = -data & 511;
      return new Entry(name, !headerOnly);
    }
  }

  /** The current entry's data; closing it closes nothing. */
  InputStream data() {
    return new InputStream() {
      @Override
      public int read() throws IOException {
        byte[] one = new byte[1];
        return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
      }

      @Override
      public int read(byte[] b, int off, int len) throws IOException {
        if (remaining == 0) {
          return -1;
        }
        int n = in.read(b, off, (int) Math.min(len, remaining));
        if (n < 0) {
          throw new IOException("it ends inside an entry");
        }
        budget.take(n);
        remaining -= n;
        return n;
      }

      @Override
      public int available() {
        // what is left of the entry: GZIPInputStream reads a next member only when told so
        return (int) Math.min(remaining, Integer.MAX_VALUE);
      }
    };
  }

  /** The prefix field's length: 155 in USTAR and PAX headers, 131 in star's, none in GNU or V7. */
  private int prefixLength() throws IOException {
    long sum = 0;
    long signed = 0;
    for (int i = 0; i < 512; i++) {
      byte b = i >= 148 && i < 156 ? (byte) ' ' : block[i];
      sum += b & 0xff;
      signed += b;
    }
    long recorded = octal(block, 148, 8);
    if (recorded != sum && recorded != signed) {
      throw new IOException("a header's checksum is wrong");
    }
    String magic = new String(block, 257, 6, StandardCharsets.ISO_8859_1);
    if (magic.equals("ustar\0")) {
      return new String(block, 508, 4, StandardCharsets.ISO_8859_1).equals("tar\0") ? 131 : 155;
    }
    return 0;
  }

  private boolean readBlock() throws IOException {
    int n = in.readNBytes(block, 0, 512);
    if (n == 0) {
      return false;
    }
    if (n < 512) {
      throw new IOException("it ends inside a header");
    }
    budget.take(512);
    return true;
  }

  private byte[] special(long size) throws IOException {
    if (size < 0 || size > MAX_SPECIAL) {
      throw new IOException("a PAX header or long name is over 1 MiB");
    }
    byte[] bytes = in.readNBytes((int) size);
    if (bytes.length < size) {
      throw new IOException("it ends inside an entry");
    }
    budget.take(size);
    return bytes;
  }

  /** Skips {@code n} bytes of an entry's data, which must be there. */
  private void skip(long n) throws IOException {
    budget.take(n);
    try {
      in.skipNBytes(n);
    } catch (java.io.EOFException e) {
      throw new IOException("it ends inside an entry", e);
    }
  }

  /**
   * Skips the {@code n} bytes padding an entry's data to a block; {@code false} when the stream
   * ends among them, which Go reads as the end of the archive.
   */
  private boolean pad(long n) throws IOException {
    budget.take(n);
    return in.readNBytes(new byte[(int) n], 0, (int) n) == n;
  }

  /** PAX records ({@code LENGTH KEY=VALUE\n}), as Go's {@code parsePAX} reads them. */
  private static Map<String, String> paxRecords(byte[] bytes) throws IOException {
    Map<String, String> records = new HashMap<>();
    String s = new String(bytes, StandardCharsets.ISO_8859_1);
    while (!s.isEmpty()) {
      int space = s.indexOf(' ');
      long n = space < 0 ? -1 : decimal(s.substring(0, space));
      if (n < 5 || n > s.length() || n - space - 1 <= 0 || s.charAt((int) n - 1) != '\n') {
        throw new IOException("a PAX record is malformed");
      }
      String record = s.substring(space + 1, (int) n - 1);
      int equals = record.indexOf('=');
      String key = equals < 0 ? "" : record.substring(0, equals);
      String value = record.substring(equals + 1);
      boolean path = key.equals("path") || key.equals("linkpath");
      if (key.isEmpty() || key.indexOf('\0') >= 0 || (path && value.indexOf('\0') >= 0)) {
        throw new IOException("a PAX record is malformed");
      }
      records.put(key, utf8(value));
      s = s.substring((int) n);
    }
    return records;
  }

  private static long decimal(String text) throws IOException {
    try {
      return Long.parseLong(text);
    } catch (NumberFormatException e) {
      throw new IOException("a number is malformed: " + Escapes.quote(text), e);
    }
  }

  /** A numeric field: base-256 when its first bit is set, else octal, as Go's parseNumeric. */
  private static long numeric(byte[] b, int offset, int length) throws IOException {
    if ((b[offset] & 0x80) == 0) {
      return octal(b, offset, length);
    }
    int invert = (b[offset] & 0x40) != 0 ? 0xff : 0;
    long x = 0;
    for (int i = 0; i < length; i++) {
      int c = (b[offset + i] ^ invert) & 0xff;
      if (i == 0) {
        c &= 0x7f;
      }
      if ((x >>> 56) > 0) {
        throw new IOException("a number overflows");
      }
      x = x << 8 | c;
    }
    if (x < 0) {
      throw new IOException("a number overflows");
    }
    return invert == 0 ? x : ~x;
  }

  /** An octal field, spaces and NULs around it trimmed, as Go's parseOctal. */
  private static long octal(byte[] b, int offset, int length) throws IOException {
    int start = offset;
    int end = offset + length;
    while (start < end && (b[start] == ' ' || b[start] == 0)) {
      start++;
    }
    while (end > start && (b[end - 1] == ' ' || b[end - 1] == 0)) {
      end--;
    }
    String digits = cString(java.util.Arrays.copyOfRange(b, start, end));
    if (digits.isEmpty()) {
      return 0;
    }
    if (!digits.chars().allMatch(c -> c >= '0' && c <= '7')) {
      throw new IOException("a header's number is malformed: " + Escapes.quote(digits));
    }
    try {
      return Long.parseLong(digits, 8);
    } catch (NumberFormatException e) {
      throw new IOException("a header's number is malformed: " + Escapes.quote(digits), e);
    }
  }

  /** A text field: its bytes up to the first NUL, as UTF-8. */
  private static String text(byte[] b, int offset, int length) {
    int end = offset;
    while (end < offset + length && b[end] != 0) {
      end++;
    }
    return new String(b, offset, end - offset, StandardCharsets.UTF_8);
  }

  private static String cString(byte[] bytes) {
    return text(bytes, 0, bytes.length);
  }

  private static String utf8(String latin1) {
    return new String(latin1.getBytes(StandardCharsets.ISO_8859_1), StandardCharsets.UTF_8);
  }

  private static boolean zero(byte[] b) {
    for (byte x : b) {
      if (x != 0) {
        return false;
      }
    }
    return true;
  }
}
