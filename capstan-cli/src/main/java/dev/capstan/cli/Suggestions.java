package dev.capstan.cli;

import dev.capstan.common.Escapes;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * What a mistyped command or option most likely meant, as kubectl and helm suggest it: the names
 * within an edit distance of 2 (a letter left out, added, changed, or two swapped), or that start
 * with what was typed, the closest first; an alias is shown as the command it names.
 */
final class Suggestions {
  private static final int MAX_DISTANCE = 2;

  private Suggestions() {}

  /**
   * The line for an argument picocli could not match, with a suggestion when there is one; null
   * when the exception is about something else (a missing value, a bad one).
   */
  static @Nullable String message(CommandLine.ParameterException e) {
    if (!(e instanceof CommandLine.UnmatchedArgumentException u) || u.getUnmatched().isEmpty()) {
      return null;
    }
    CommandSpec spec = e.getCommandLine().getCommandSpec();
    String typed = u.getUnmatched().get(0);
    boolean option = typed.startsWith("-");
    String name = option ? typed.split("=", 2)[0] : typed;
    List<String> close = option ? closeOptions(spec, name) : closeCommands(spec, name);
    if (close.isEmpty() && !option && spec.subcommands().isEmpty()) {
      return null; // an extra argument to a command that takes none: picocli's words say it
    }
    StringBuilder line =
        new StringBuilder("unknown ")
            .append(option ? "option " : "command ")
            .append(Escapes.quote(name))
            .append(" for '")
            .append(spec.qualifiedName())
            .append("'");
    if (!close.isEmpty()) {
      line.append("; did you mean ");
      for (int i = 0; i < close.size(); i++) {
        line.append(i == 0 ? "" : i == close.size() - 1 ? " or " : ", ")
            .append('\'')
            .append(close.get(i))
            .append('\'');
      }
      line.append('?');
    }
    return line.toString();
  }

  /** The subcommands of {@code spec} close to {@code typed}, by their names. */
  static List<String> closeCommands(CommandSpec spec, String typed) {
    List<String> names = new ArrayList<>();
    List<String> primary = new ArrayList<>();
    for (Map.Entry<String, CommandLine> e : spec.subcommands().entrySet()) {
      if (e.getValue().getCommandSpec().usageMessage().hidden()) {
        continue;
      }
      names.add(e.getKey());
      primary.add(e.getValue().getCommandName());
    }
    return closest(typed, names, primary);
  }

  /** The options of {@code spec} close to {@code typed}. */
  static List<String> closeOptions(CommandSpec spec, String typed) {
    List<String> names = new ArrayList<>();
    List<String> primary = new ArrayList<>();
    for (OptionSpec o : spec.options()) {
      if (o.hidden()) {
        continue;
      }
      for (String n : o.names()) {
        names.add(n);
        primary.add(o.longestName());
      }
    }
    return closest(typed, names, primary);
  }

  /**
   * The entries of {@code primary} whose {@code names} are nearest to {@code typed}: at the
   * smallest distance found, within {@link #MAX_DISTANCE}, or starting with what was typed.
   */
  private static List<String> closest(String typed, List<String> names, List<String> primary) {
    int best = Integer.MAX_VALUE;
    Set<String> found = new LinkedHashSet<>();
    String bare = typed.replaceFirst("^-+", "");
    for (int i = 0; i < names.size(); i++) {
      String name = names.get(i);
      String nameBare = name.replaceFirst("^-+", "");
      int d = distance(typed, name);
      if (bare.length() >= 2 && nameBare.startsWith(bare) && !name.equals(typed)) {
        d = Math.min(d, 1);
      }
      if (d > MAX_DISTANCE || (nameBare.length() == 1 && d > 0 && bare.length() > 1)) {
        continue; // a one-letter option is near every short word
      }
      if (d < best) {
        best = d;
        found.clear();
      }
      if (d == best) {
        found.add(primary.get(i));
      }
    }
    return List.copyOf(found);
  }

  /**
   * The optimal string alignment distance: insertions, deletions, substitutions and swaps of two
   * neighbouring letters, each 1.
   */
  static int distance(String a, String b) {
    int[][] d = new int[a.length() + 1][b.length() + 1];
    for (int i = 0; i <= a.length(); i++) {
      d[i][0] = i;
    }
    for (int j = 0; j <= b.length(); j++) {
      d[0][j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      for (int j = 1; j <= b.length(); j++) {
        int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
        d[i][j] = Math.min(Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1), d[i - 1][j - 1] + cost);
        if (i > 1
            && j > 1
            && a.charAt(i - 1) == b.charAt(j - 2)
            && a.charAt(i - 2) == b.charAt(j - 1)) {
          d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
        }
      }
    }
    return d[a.length()][b.length()];
  }
}
