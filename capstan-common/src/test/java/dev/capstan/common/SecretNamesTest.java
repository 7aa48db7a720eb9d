package dev.capstan.common;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The one rule of secret names, for chart values' keys and environment variables' names alike. */
class SecretNamesTest {
  @Test
  void chartValueKeysThatHoldASecretWordAreSecret() {
    assertThat(
            List.of(
                "password",
                "adminPassword",
                "api-key",
                "apiKey",
                "client_secret",
                "TOKEN",
                "privateKey",
                "credentials",
                "passphrase"))
        .allMatch(SecretNames::isSecret);
  }

  @Test
  void keysThatNameASecretOrSayWhetherToUseOneAreNotSecret() {
    assertThat(
            List.of(
                "existingSecret", "secretName", "tokenEnabled", "replicas", "key", "user", "host"))
        .noneMatch(SecretNames::isSecret);
  }

  @Test
  void environmentVariableNamesFollowTheSameRule() {
    assertThat(
            List.of(
                "DB_PASSWORD",
                "PGPASSWORD",
                "API_KEY",
                "GITHUB_TOKEN",
                "AWS_SECRET_ACCESS_KEY",
                "SMTP_PASSWD",
                "GOOGLE_APPLICATION_CREDENTIALS"))
        .allMatch(SecretNames::isSecret);
    assertThat(List.of("LOG_LEVEL", "DB_USER", "DB_HOST", "DB_SECRET_NAME", "TOKEN_ENABLED"))
        .noneMatch(SecretNames::isSecret);
  }
}
