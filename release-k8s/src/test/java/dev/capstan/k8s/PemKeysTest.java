package dev.capstan.k8s;

import static java.nio.charset.StandardCharsets.US_ASCII;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.security.interfaces.ECPrivateKey;
import javax.net.ssl.KeyManager;
import javax.net.ssl.X509KeyManager;
import org.junit.jupiter.api.Test;

class PemKeysTest {

  @Test
  void rsaKeyInPkcs1IsTheSameKeyAsInPkcs8() throws Exception {
    PrivateKey pkcs1 = key("rsa-pkcs1.key");
    PrivateKey pkcs8 = key("rsa-pkcs8.key");

    assertThat(pkcs1.getAlgorithm()).isEqualTo("RSA");
    assertThat(pkcs1.getEncoded()).isEqualTo(pkcs8.getEncoded());
  }

  @Test
  void ecKeyInSec1AfterItsParametersBlockIsTheSameKeyAsInPkcs8() throws Exception {
    ECPrivateKey sec1 = (ECPrivateKey) key("ec-sec1.key");
    ECPrivateKey pkcs8 = (ECPrivateKey) key("ec-pkcs8.key");

    assertThat(sec1.getAlgorithm()).isEqualTo("EC");
    assertThat(sec1.getS()).isEqualTo(pkcs8.getS());
    assertThat(sec1.getParams().toString())
        .isEqualTo(pkcs8.getParams().toString())
        .startsWith("secp256r1");
  }

  @Test
  void ed25519KeyInPkcs8IsRead() throws Exception {
    assertThat(key("ed25519.key").getAlgorithm()).isEqualTo("EdDSA");
  }

  @Test
  void encryptedOrUnreadableKeysAreLeftToClientJava() throws Exception {
    assertThat(PemKeys.privateKey(pem("rsa-encrypted.key"))).isNull();
    assertThat(PemKeys.keyManagers(pem("rsa.crt"), pem("rsa-encrypted.key"))).isNull();
    assertThat(PemKeys.keyManagers(pem("rsa.crt"), "not a key".getBytes(US_ASCII))).isNull();
    assertThat(PemKeys.keyManagers("no certificate".getBytes(US_ASCII), pem("rsa-pkcs1.key")))
        .isNull();
  }

  @Test
  void keyManagersPresentTheCertificateWithItsKey() throws Exception {
    for (String[] pair :
        new String[][] {{"rsa.crt", "rsa-pkcs1.key", "RSA"}, {"ec.crt", "ec-sec1.key", "EC"}}) {
      KeyManager[] managers = PemKeys.keyManagers(pem(pair[0]), pem(pair[1]));

      assertThat(managers).hasSize(1);
      X509KeyManager manager = (X509KeyManager) managers[0];
      assertThat(manager.getClientAliases(pair[2], null)).containsExactly("client");
      X509Certificate[] chain = manager.getCertificateChain("client");
      assertThat(chain).hasSize(1);
      assertThat(chain[0].getSubjectX500Principal().getName())
          .isEqualTo("CN=" + pair[2].toLowerCase(java.util.Locale.ROOT) + "-client");
      assertThat(manager.getPrivateKey("client").getEncoded()).isEqualTo(key(pair[1]).getEncoded());
    }
  }

  static PrivateKey key(String name) throws Exception {
    PrivateKey key = PemKeys.privateKey(pem(name));
    assertThat(key).as(name).isNotNull();
    return key;
  }

  static byte[] pem(String name) throws IOException {
    try (InputStream in = PemKeysTest.class.getResourceAsStream("pem/" + name)) {
      assertThat(in).as(name).isNotNull();
      return in.readAllBytes();
    }
  }
}
