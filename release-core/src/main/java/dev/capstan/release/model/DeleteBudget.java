package dev.capstan.release.model;

import dev.capstan.common.Escapes;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * How many objects one plan may delete without an approval by name ({@link DeleteGate}): a count
 * ({@code 10}) or a share of the objects the release owns before the cast ({@code 20%}). A delete
 * is a {@code prune} or a {@code replace}; an un-stamp ({@code retain}) keeps the object and is
 * none.
 *
 * @param limit the count, or the percentage when {@code share}
 * @param share whether {@code limit} is a percentage (0 to 100) of the release's owned objects
 */
public record DeleteBudget(int limit, boolean share) {
  private static final Pattern TEXT = Pattern.compile("([0-9]{1,9})(%?)");

  /** Requires a count of at least 0, a share from 0 to 100. */
  public DeleteBudget {
    if (limit < 0 || (share && limit > 100)) {
      throw new IllegalArgumentException(
          "delete budget must be a count of at least 0 or a share from 0% to 100%: "
              + Escapes.quote(limit + (share ? "%" : "")));
    }
  }

  /** At most {@code count} deletes per plan. */
  public static DeleteBudget count(int count) {
    return new DeleteBudget(count, false);
  }

  /** At most {@code percent} percent of the release's owned objects deleted per plan. */
  public static DeleteBudget share(int percent) {
    return new DeleteBudget(percent, true);
  }

  /**
   * Parses {@link #toString()}'s form: {@code 10} or {@code 20%}.
   *
   * @throws IllegalArgumentException naming the rule and the escaped text otherwise
   */
  public static DeleteBudget parse(String text) {
    Matcher m = TEXT.matcher(text);
    if (!m.matches()) {
      throw new IllegalArgumentException(
          "delete budget must be a count (10) or a share of the release (20%): "
              + Escapes.quote(text));
    }
    return new DeleteBudget(Integer.parseInt(m.group(1)), !m.group(2).isEmpty());
  }

  /**
   * Whether {@code deletes} unapproved deletes of a release that owns {@code owned} objects are
   * over this budget. A share is of the owned objects, so {@code 50%} of 3 allows 1.
   */
  public boolean exceededBy(int deletes, int owned) {
    return share ? (long) deletes * 100 > (long) limit * owned : deletes > limit;
  }

  /** What this budget allows, for messages: {@code 10 deletes}, {@code 20% of the release}. */
  public String describe(int owned) {
    return share ? limit + "% of the release's " + owned + " object(s)" : limit + " delete(s)";
  }

  /** {@code 10} or {@code 20%}. */
  @Override
  public String toString() {
    return limit + (share ? "%" : "");
  }
}
