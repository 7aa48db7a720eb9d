package dev.capstan.cli.update;

import dev.capstan.common.Escapes;
import java.util.ArrayList;
import java.util.List;

/**
 * Left-aligned columns separated by two spaces (the last column unpadded), like Go's tabwriter with
 * padding 2; empty cells print as {@code -}. Rows may carry extra lines printed under them.
 */
final class TextTable {
  private final List<String> header;
  private final List<List<String>> rows = new ArrayList<>();
  private final List<List<String>> under = new ArrayList<>();

  TextTable(String... header) {
    this.header = List.of(header);
  }

  TextTable row(String... cells) {
    return row(List.of(), cells);
  }

  TextTable row(List<String> linesUnder, String... cells) {
    if (cells.length != header.size()) {
      throw new IllegalArgumentException(
          "row has " + cells.length + " cells, header has " + header.size());
    }
    List<String> row = new ArrayList<>();
    for (String cell : cells) {
      row.add(cell.isEmpty() ? "-" : Escapes.escape(cell));
    }
    rows.add(row);
    under.add(linesUnder.stream().map(Escapes::escape).toList());
    return this;
  }

  void appendTo(StringBuilder sb) {
    int[] widths = new int[header.size()];
    for (int c = 0; c < widths.length; c++) {
      widths[c] = header.get(c).length();
      for (List<String> row : rows) {
        widths[c] = Math.max(widths[c], row.get(c).length());
      }
    }
    line(sb, header, widths);
    for (int r = 0; r < rows.size(); r++) {
      line(sb, rows.get(r), widths);
      for (String extra : under.get(r)) {
        sb.append("  ").append(extra).append('\n');
      }
    }
  }

  private static void line(StringBuilder sb, List<String> cells, int[] widths) {
    StringBuilder line = new StringBuilder();
    for (int c = 0; c < cells.size(); c++) {
      line.append(cells.get(c));
      if (c < cells.size() - 1) {
        line.append(" ".repeat(widths[c] - cells.get(c).length() + 2));
      }
    }
    sb.append(line.toString().stripTrailing()).append('\n');
  }
}
