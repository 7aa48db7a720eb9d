package dev.capstan.k8s;

import static java.nio.charset.StandardCharsets.US_ASCII;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.net.Socket;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.Principal;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.Arrays;
import java.util.Base64;
import java.util.Collection;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.net.ssl.KeyManager;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.X509ExtendedKeyManager;
import org.jspecify.annotations.Nullable;

/**
 * A kubeconfig's client certificate and key read with the JDK alone. client-java reads them with
 * BouncyCastle, registering its provider first, which loads some 800 classes and costs a CLI most
 * of a second at start-up; the JDK reads the unencrypted keys kubeconfigs hold: PKCS#8 ({@code
 * PRIVATE KEY}: RSA, EC, Ed25519/Ed448), PKCS#1 ({@code RSA PRIVATE KEY}) and SEC1 with named curve
 * parameters ({@code EC PRIVATE KEY}). Anything else (encrypted keys, SEC1 without parameters)
 * yields {@code null}, and the caller keeps client-java's reading.
 */
final class PemKeys {
  private static final Pattern BLOCK =
      Pattern.compile("-----BEGIN ([A-Z0-9 ]+)-----\\s*([A-Za-z0-9+/=\\s]*?)\\s*-----END \\1-----");
  private static final String ALIAS = "client";
  // DER of the AlgorithmIdentifier parts: rsaEncryption with NULL parameters, id-ecPublicKey.
  private static final byte[] RSA_ALGORITHM =
      der(0x30, concat(oid("2a864886f70d010101"), new byte[] {0x05, 0x00}));
  private static final byte[] EC_PUBLIC_KEY_OID = oid("2a8648ce3d0201");

  private PemKeys() {}

  /**
   * Key managers presenting {@code certificatePem}'s chain with the key in {@code keyPem}, or null
   * when the JDK cannot read them as they are.
   */
  static KeyManager @Nullable [] keyManagers(byte[] certificatePem, byte[] keyPem) {
    try {
      PrivateKey key = privateKey(keyPem);
      if (key == null) {
        return null;
      }
      Collection<? extends Certificate> certificates =
          CertificateFactory.getInstance("X.509")
              .generateCertificates(new ByteArrayInputStream(certificatePem));
      X509Certificate[] chain = new X509Certificate[certificates.size()];
      int i = 0;
      for (Certificate c : certificates) {
        if (!(c instanceof X509Certificate x509)) {
          return null;
        }
        chain[i++] = x509;
      }
      if (chain.length == 0) {
        return null;
      }
      // A key manager of its own: a PKCS12 key store would encrypt the key with PBKDF2 first.
      return new KeyManager[] {new ClientKeyManager(key, chain)};
    } catch (GeneralSecurityException | RuntimeException e) {
      return null;
    }
  }

  /** The private key of the first key block in {@code pem}, or null (see the class comment). */
  static @Nullable PrivateKey privateKey(byte[] pem) throws GeneralSecurityException {
    Matcher m = BLOCK.matcher(new String(pem, US_ASCII));
    while (m.find()) {
      byte[] body;
      try {
        body = Base64.getMimeDecoder().decode(m.group(2));
      } catch (IllegalArgumentException e) {
        return null;
      }
      switch (m.group(1)) {
        case "PRIVATE KEY" -> {
          return pkcs8(body);
        }
        case "RSA PRIVATE KEY" -> {
          return KeyFactory.getInstance("RSA")
              .generatePrivate(new PKCS8EncodedKeySpec(privateKeyInfo(RSA_ALGORITHM, body)));
        }
        case "EC PRIVATE KEY" -> {
          byte[] curve = sec1Curve(body);
          return curve == null
              ? null
              : KeyFactory.getInstance("EC")
                  .generatePrivate(
                      new PKCS8EncodedKeySpec(
                          privateKeyInfo(der(0x30, concat(EC_PUBLIC_KEY_OID, curve)), body)));
        }
        default -> {
          // EC PARAMETERS before an EC key, or a certificate: look further.
        }
      }
    }
    return null;
  }

  private static @Nullable PrivateKey pkcs8(byte[] der) throws GeneralSecurityException {
    PKCS8EncodedKeySpec spec = new PKCS8EncodedKeySpec(der);
    for (String algorithm : new String[] {"RSA", "EC", "EdDSA"}) {
      try {
        return KeyFactory.getInstance(algorithm).generatePrivate(spec);
      } catch (java.security.spec.InvalidKeySpecException wrongAlgorithm) {
        // try the next one
      }
    }
    return null;
  }

  /**
   * The named curve OID (its whole DER) of a SEC1 {@code ECPrivateKey}: {@code SEQUENCE { INTEGER
   * 1, OCTET STRING, [0] OID, [1] BIT STRING }}; null when it names none.
   */
  private static byte @Nullable [] sec1Curve(byte[] der) {
    Der seq = new Der(der, 0);
    if (seq.tag != 0x30) {
      return null;
    }
    int at = seq.contentStart;
    while (at < seq.end) {
      Der field = new Der(der, at);
      if (field.tag == 0xa0) {
        Der curve = new Der(der, field.contentStart);
        return curve.tag == 0x06 ? Arrays.copyOfRange(der, field.contentStart, curve.end) : null;
      }
      at = field.end;
    }
    return null;
  }

  /** PKCS#8 {@code PrivateKeyInfo}: {@code SEQUENCE { INTEGER 0, algorithm, OCTET STRING key }}. */
  private static byte[] privateKeyInfo(byte[] algorithm, byte[] key) {
    return der(0x30, concat(new byte[] {0x02, 0x01, 0x00}, algorithm, der(0x04, key)));
  }

  private static byte[] oid(String hex) {
    byte[] content = new byte[hex.length() / 2];
    for (int i = 0; i < content.length; i++) {
      content[i] = (byte) Integer.parseInt(hex.substring(2 * i, 2 * i + 2), 16);
    }
    return der(0x06, content);
  }

  private static byte[] der(int tag, byte[] content) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(content.length + 6);
    out.write(tag);
    int n = content.length;
    if (n < 0x80) {
      out.write(n);
    } else {
      int bytes = n > 0xffffff ? 4 : n > 0xffff ? 3 : n > 0xff ? 2 : 1;
      out.write(0x80 | bytes);
      for (int i = bytes - 1; i >= 0; i--) {
        out.write(n >>> (8 * i));
      }
    }
    out.writeBytes(content);
    return out.toByteArray();
  }

  private static byte[] concat(byte[]... parts) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (byte[] p : parts) {
      out.writeBytes(p);
    }
    return out.toByteArray();
  }

  /** One DER element's tag and bounds (definite lengths only; out of range throws). */
  private static final class Der {
    final int tag;
    final int contentStart;
    final int end;

    Der(byte[] der, int at) {
      tag = der[at] & 0xff;
      int len = der[at + 1] & 0xff;
      int p = at + 2;
      if (len >= 0x80) {
        int bytes = len & 0x7f;
        if (bytes == 0 || bytes > 3) {
          throw new IllegalArgumentException("unsupported DER length");
        }
        len = 0;
        for (int i = 0; i < bytes; i++) {
          len = (len << 8) | (der[p++] & 0xff);
        }
      }
      contentStart = p;
      end = p + len;
      if (end > der.length) {
        throw new IllegalArgumentException("truncated DER");
      }
    }
  }

  /** Presents one certificate chain, under the alias {@code client}, for any client request. */
  private static final class ClientKeyManager extends X509ExtendedKeyManager {
    private final PrivateKey key;
    private final X509Certificate[] chain;

    ClientKeyManager(PrivateKey key, X509Certificate[] chain) {
      this.key = key;
      this.chain = chain;
    }

    private boolean fits(String @Nullable [] keyTypes) {
      if (keyTypes == null) {
        return true;
      }
      String algorithm = key.getAlgorithm();
      for (String type : keyTypes) {
        if (type.equals(algorithm)
            || (algorithm.equals("EdDSA") && (type.equals("Ed25519") || type.equals("Ed448")))) {
          return true;
        }
      }
      return false;
    }

    @Override
    public String @Nullable [] getClientAliases(String keyType, Principal @Nullable [] issuers) {
      return fits(new String[] {keyType}) ? new String[] {ALIAS} : null;
    }

    @Override
    public @Nullable String chooseClientAlias(
        String[] keyTypes, Principal @Nullable [] issuers, @Nullable Socket socket) {
      return fits(keyTypes) ? ALIAS : null;
    }

    @Override
    public @Nullable String chooseEngineClientAlias(
        String[] keyTypes, Principal @Nullable [] issuers, @Nullable SSLEngine engine) {
      return fits(keyTypes) ? ALIAS : null;
    }

    @Override
    public String @Nullable [] getServerAliases(String keyType, Principal @Nullable [] issuers) {
      return null;
    }

    @Override
    public @Nullable String chooseServerAlias(
        String keyType, Principal @Nullable [] issuers, @Nullable Socket socket) {
      return null;
    }

    @Override
    public X509Certificate @Nullable [] getCertificateChain(String alias) {
      return ALIAS.equals(alias) ? chain.clone() : null;
    }

    @Override
    public @Nullable PrivateKey getPrivateKey(String alias) {
      return ALIAS.equals(alias) ? key : null;
    }
  }
}
