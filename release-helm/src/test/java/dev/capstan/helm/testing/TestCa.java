package dev.capstan.helm.testing;

import dev.capstan.k8s.testing.Programs;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A certificate authority for one test run, made with {@code openssl} (which the control plane's
 * scripts need too), and a server certificate it signed for {@code 127.0.0.1}: PEM files for the
 * OCI registry and Helm's {@code --ca-file}, a PKCS#12 store for a Java HTTPS server.
 *
 * @param ca the CA certificate (PEM): what clients trust
 * @param cert the server certificate (PEM)
 * @param key the server key (PEM)
 * @param pkcs12 the server key and certificate as PKCS#12, password {@link #PASSWORD}
 */
public record TestCa(Path ca, Path cert, Path key, Path pkcs12) {
  /** The PKCS#12 store's password. */
  public static final String PASSWORD = "capstan-test-ca";

  /** Makes a CA and a server certificate for 127.0.0.1 in {@code dir}. */
  public static TestCa create(Path dir) {
    try {
      Files.createDirectories(dir);
      Path ca = dir.resolve("ca.pem");
      Path caKey = dir.resolve("ca.key");
      Path key = dir.resolve("server.key");
      Path csr = dir.resolve("server.csr");
      Path cert = dir.resolve("server.pem");
      Path ext = dir.resolve("server.ext");
      Path p12 = dir.resolve("server.p12");
      Files.writeString(ext, "subjectAltName=IP:127.0.0.1\n", StandardCharsets.UTF_8);
      String curve = "ec_paramgen_curve:P-256";
      openssl(
          "req",
          "-x509",
          "-newkey",
          "ec",
          "-pkeyopt",
          curve,
          "-nodes",
          "-keyout",
          caKey.toString(),
          "-out",
          ca.toString(),
          "-days",
          "2",
          "-subj",
          "/CN=capstan test CA");
      openssl(
          "req",
          "-newkey",
          "ec",
          "-pkeyopt",
          curve,
          "-nodes",
          "-keyout",
          key.toString(),
          "-out",
          csr.toString(),
          "-subj",
          "/CN=127.0.0.1");
      openssl(
          "x509",
          "-req",
          "-in",
          csr.toString(),
          "-CA",
          ca.toString(),
          "-CAkey",
          caKey.toString(),
          "-CAcreateserial",
          "-out",
          cert.toString(),
          "-days",
          "2",
          "-extfile",
          ext.toString());
      openssl(
          "pkcs12",
          "-export",
          "-in",
          cert.toString(),
          "-inkey",
          key.toString(),
          "-out",
          p12.toString(),
          "-passout",
          "pass:" + PASSWORD);
      return new TestCa(ca, cert, key, p12);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void openssl(String... args) {
    List<String> command = new ArrayList<>(List.of("openssl"));
    command.addAll(List.of(args));
    Programs.run(command, null, Duration.ofMinutes(1));
  }
}
