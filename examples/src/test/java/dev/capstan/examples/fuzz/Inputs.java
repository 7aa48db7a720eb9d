package dev.capstan.examples.fuzz;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Random;

/**
 * Makes fuzz inputs from a seeded {@link Random}: valid seed files with a few mutations (bytes
 * replaced, tokens inserted, ranges deleted or repeated), random trees written as YAML or JSON with
 * the formats' field names, and pathological documents (deep nesting, alias bombs, many documents,
 * invalid UTF-8, control characters).
 */
final class Inputs {
  /** Field names of every format read, so random trees reach past the first unknown field. */
  private static final List<String> FIELDS =
      List.of(
          "apiVersion",
          "kind",
          "metadata",
          "spec",
          "name",
          "namespace",
          "version",
          "source",
          "services",
          "secrets",
          "configMaps",
          "volumes",
          "references",
          "image",
          "replicas",
          "command",
          "args",
          "ports",
          "port",
          "protocol",
          "env",
          "envFrom",
          "secret",
          "configMap",
          "volumeMounts",
          "volume",
          "mountPath",
          "readOnly",
          "resources",
          "readinessProbe",
          "path",
          "labels",
          "annotations",
          "type",
          "stringData",
          "data",
          "fromEnv",
          "size",
          "storageClass",
          "accessModes",
          "reclaimPolicy",
          "registry",
          "crdChange",
          "crds",
          "components",
          "repository",
          "tag",
          "digest",
          "platform",
          "manifestApiVersion",
          "releaseBaseUrl",
          "installedCheck",
          "deployment",
          "container",
          "envVar",
          "built",
          "optIn",
          "note",
          "versionPolicy",
          "preserved",
          "domain",
          "partOf",
          "hint",
          "group",
          "names",
          "versions");

  /** Scalars that break readers that coerce, trim or trust their input. */
  private static final List<String> SCALARS =
      List.of(
          "1.10",
          "1.5",
          "1e3",
          "-0",
          "0x1F",
          "010",
          "99999999999999999999",
          ".inf",
          ".nan",
          "true",
          "yes",
          "null",
          "~",
          "\"\"",
          "''",
          "web",
          "demo",
          "capstan.dev/v1",
          "Release",
          "\"a\\e[2Jb\"",
          "\"line\\nDEPLOYED\"",
          "\"\\u0000\"",
          "\"\\u202e\"",
          "TCP",
          "udp",
          "Retain",
          "v1.2.3",
          "1Gi",
          "-1",
          "2147483648",
          "\"é\"",
          "!!binary aGk=",
          "!!set {a}",
          "!foo x",
          "&a x",
          "*a",
          "<<: *a");

  private static final List<String> TOKENS =
      List.of(
          "1.10",
          "1.5",
          "true",
          "null",
          "&a ",
          "*a",
          "---\n",
          "...\n",
          "[",
          "]",
          "{",
          "}",
          ":",
          ": ",
          "- ",
          "? ",
          "!!binary ",
          "!!set ",
          "!!python/object ",
          "\u001b[2J",
          "\n",
          "  ",
          "\t",
          "<<: *a\n",
          "0x1F",
          "~",
          ".inf",
          "99999999999999999999",
          "\"",
          "'",
          "#",
          "|\n",
          ">\n",
          "%YAML 1.2\n",
          "\\",
          "\u0000",
          "\ufeff",
          "\u202e",
          "\r\n");

  private Inputs() {}

  /** A seed with one to eight mutations. */
  static byte[] mutate(byte[] seed, Random random) {
    byte[] out = seed;
    int mutations = 1 + random.nextInt(8);
    for (int m = 0; m < mutations; m++) {
      out = mutateOnce(out, random);
    }
    return out;
  }

  private static byte[] mutateOnce(byte[] in, Random random) {
    int at = in.length == 0 ? 0 : random.nextInt(in.length + 1);
    ByteArrayOutputStream out = new ByteArrayOutputStream(in.length + 64);
    switch (random.nextInt(5)) {
      case 0 -> {
        out.write(in, 0, at);
        byte[] interesting = {
          0,
          0x1b,
          '\n',
          '[',
          '{',
          ':',
          '&',
          '*',
          '-',
          '"',
          '\'',
          (byte) 0xff,
          (byte) 0xc3,
          '!',
          '%',
          '#',
          '|',
          '>',
          '?',
          ' ',
          '1',
          '.',
          'e'
        };
        out.write(interesting[random.nextInt(interesting.length)]);
        if (at < in.length) {
          out.write(in, at + 1, in.length - at - 1);
        }
      }
      case 1, 2 -> {
        out.write(in, 0, at);
        out.writeBytes(TOKENS.get(random.nextInt(TOKENS.size())).getBytes(StandardCharsets.UTF_8));
        out.write(in, at, in.length - at);
      }
      case 3 -> {
        int end = Math.min(in.length, at + random.nextInt(64));
        out.write(in, 0, at);
        out.write(in, end, in.length - end);
      }
      default -> {
        int end = Math.min(in.length, at + random.nextInt(256));
        out.write(in, 0, end);
        out.write(in, at, end - at);
        out.write(in, at, in.length - at);
      }
    }
    return out.toByteArray();
  }

  /** A random tree of the formats' field names, as YAML (block or flow) or JSON. */
  static byte[] tree(Random random) {
    StringBuilder sb = new StringBuilder();
    boolean json = random.nextBoolean();
    if (json) {
      json(sb, random, 0);
    } else {
      yaml(sb, random, 0, 0);
    }
    return sb.toString().getBytes(StandardCharsets.UTF_8);
  }

  private static String field(Random random) {
    return random.nextInt(10) == 0 ? SCALARS.get(random.nextInt(SCALARS.size())) : pick(random);
  }

  private static String pick(Random random) {
    return FIELDS.get(random.nextInt(FIELDS.size()));
  }

  private static void json(StringBuilder sb, Random random, int depth) {
    int kind = depth > 6 ? 2 : random.nextInt(3);
    if (kind == 0) {
      sb.append('{');
      int n = random.nextInt(5);
      for (int i = 0; i < n; i++) {
        if (i > 0) {
          sb.append(", ");
        }
        sb.append('"').append(pick(random)).append("\": ");
        json(sb, random, depth + 1);
      }
      sb.append('}');
    } else if (kind == 1) {
      sb.append('[');
      int n = random.nextInt(4);
      for (int i = 0; i < n; i++) {
        if (i > 0) {
          sb.append(", ");
        }
        json(sb, random, depth + 1);
      }
      sb.append(']');
    } else {
      String s = SCALARS.get(random.nextInt(SCALARS.size()));
      sb.append(
          random.nextBoolean() ? s : "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\"");
    }
  }

  private static void yaml(StringBuilder sb, Random random, int depth, int indent) {
    int n = 1 + random.nextInt(depth == 0 ? 5 : 3);
    for (int i = 0; i < n; i++) {
      sb.append(" ".repeat(indent)).append(field(random)).append(':');
      int kind = depth > 5 ? 2 : random.nextInt(4);
      if (kind == 0) {
        sb.append('\n');
        yaml(sb, random, depth + 1, indent + 2);
      } else if (kind == 1) {
        sb.append('\n');
        int items = 1 + random.nextInt(3);
        for (int j = 0; j < items; j++) {
          sb.append(" ".repeat(indent + 2)).append("- ");
          if (random.nextBoolean()) {
            sb.append(SCALARS.get(random.nextInt(SCALARS.size()))).append('\n');
          } else {
            sb.append(pick(random))
                .append(": ")
                .append(SCALARS.get(random.nextInt(SCALARS.size())));
            sb.append('\n');
          }
        }
      } else if (kind == 2) {
        sb.append(' ').append(SCALARS.get(random.nextInt(SCALARS.size()))).append('\n');
      } else {
        sb.append(' ');
        json(sb, random, depth + 1);
        sb.append('\n');
      }
    }
  }

  /** A document built to break a limit or a recursive reader. */
  static byte[] pathological(Random random) {
    int depth = 50 + random.nextInt(20_000);
    String text =
        switch (random.nextInt(8)) {
          case 0 -> "a: " + "[".repeat(depth) + "]".repeat(depth) + "\n";
          case 1 -> "{\"a\": " + "{\"b\": ".repeat(depth) + "1" + "}".repeat(depth) + "}";
          case 2 -> {
            StringBuilder sb = new StringBuilder();
            for (int i = 0; i < Math.min(depth, 3000); i++) {
              sb.append(" ".repeat(i)).append("k:\n");
            }
            yield sb.toString();
          }
          case 3 -> {
            StringBuilder sb = new StringBuilder("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
            for (int i = 1; i < 2 + random.nextInt(12); i++) {
              sb.append("a").append(i).append(": &a").append(i).append(" [");
              for (int j = 0; j < 10; j++) {
                sb.append(j == 0 ? "" : ", ").append("*a").append(i - 1);
              }
              sb.append("]\n");
            }
            yield sb.toString();
          }
          case 4 -> "a: 1\n---\n".repeat(1 + random.nextInt(2000));
          case 5 -> "a: &a [1, *a]\n";
          case 6 -> "- ".repeat(Math.min(depth, 5000)) + "x\n";
          default -> "a: \"" + "\\u001b[2J\\n".repeat(1 + random.nextInt(50)) + "\"\n";
        };
    byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
    if (random.nextInt(4) == 0 && bytes.length > 0) {
      bytes[random.nextInt(bytes.length)] = (byte) (0x80 + random.nextInt(0x80));
    }
    return bytes;
  }
}
