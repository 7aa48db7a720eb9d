package dev.capstan.common;

import java.util.Locale;
import java.util.regex.Pattern;

/**
 * Which names name a secret: the one rule by which Capstan withholds a value for its name alone,
 * whether it is a chart value's key ({@code auth.password}) or an environment variable's name
 * ({@code DB_PASSWORD}). A name is secret when it holds {@code password}, {@code passwd}, {@code
 * passphrase}, {@code secret}, {@code token}, {@code apikey}, {@code privatekey} or {@code
 * credential} (case, {@code -} and {@code _} ignored), unless it names one by its name ({@code
 * ...name}, {@code existing...}: {@code secretName}, {@code DB_SECRET_NAME}, {@code
 * existingSecret}) or says whether to use one ({@code ...enabled}: {@code tokenEnabled}).
 */
public final class SecretNames {
  private static final Pattern SECRET =
      Pattern.compile(".*(password|passwd|passphrase|secret|token|apikey|privatekey|credential).*");
  private static final Pattern NAMES_ONE = Pattern.compile("(existing.*|.*name|.*enabled)");

  private SecretNames() {}

  /**
   * Whether {@code name} names a secret, so that the value it names is never shown.
   *
   * @param name a key or a variable's name, e.g. {@code adminPassword}, {@code API_TOKEN}
   * @return true when the value under it is secret
   */
  public static boolean isSecret(String name) {
    String n = name.toLowerCase(Locale.ROOT).replace("-", "").replace("_", "");
    return SECRET.matcher(n).matches() && !NAMES_ONE.matcher(n).matches();
  }
}
