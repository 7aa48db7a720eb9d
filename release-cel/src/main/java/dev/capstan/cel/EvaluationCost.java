package dev.capstan.cel;

import dev.cel.common.ast.CelExpr;
import dev.cel.common.ast.CelExpr.ExprKind.Kind;
import dev.cel.common.navigation.CelNavigableExpr;
import dev.cel.common.values.CelByteString;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What one expression's evaluation costs as it runs, in the units of {@link
 * CelHealthRules#MAX_EVALUATION_COST} (docs/health-rules.md, "Limits of an evaluation"; modelled on
 * Kubernetes' runtime cost of validation rules): each step (an expression node evaluated) costs 1,
 * and a function call, priced from its arguments before it runs, 1 more per 10 characters or items
 * it reads, compares, copies or makes:
 *
 * <ul>
 *   <li>{@code s.matches(re)}: (characters of {@code s} + 1) / 10 times the {@link RegexSize} of
 *       {@code re}, since RE2J's time is their product;
 *   <li>{@code s.contains(t)}: characters of {@code s} / 10 times characters of {@code t} / 10;
 *   <li>{@code ==}, {@code !=}, {@code <}, {@code <=}, {@code >}, {@code >=}: the smaller whole
 *       size of the two (a list or map 1 plus what it holds, keys and values) / 10;
 *   <li>{@code x in list}: for each item, the smaller whole size of {@code x} and the item / 10;
 *   <li>{@code +} of lists: their items / 10 (only the added items when a macro's loop appends to
 *       its result, which CEL does in place);
 *   <li>any other function: the characters of its string and bytes arguments / 10 (concatenation,
 *       {@code size}, {@code startsWith}, conversions).
 * </ul>
 *
 * Each division rounds up. Pricing a call before it runs means no call starts that the limit cannot
 * pay for: neither a concatenation nor a pattern's compilation can outgrow it.
 */
final class EvaluationCost {
  /**
   * A function call: its name, the ids of its arguments (the receiver first), whether it appends.
   */
  private record Call(String function, List<Long> arguments, boolean appends) {}

  /**
   * An argument whose value the meter did not keep (none is missing where CEL calls a function).
   */
  private static final Object MISSING = new Object();

  private static final Set<String> NOT_PRICED = Set.of("_&&_", "_||_", "_?_:_");

  private static final Set<String> COMPARISONS =
      Set.of("_==_", "_!=_", "_<_", "_<=_", "_>_", "_>=_");

  /** The calls, by the id of the argument evaluated last: once it is, the call runs. */
  private final Map<Long, Call> byLastArgument;

  /** The ids of the other arguments, whose values the meter keeps until their call is priced. */
  private final Set<Long> earlierArguments;

  private EvaluationCost(Map<Long, Call> byLastArgument, Set<Long> earlierArguments) {
    this.byLastArgument = Map.copyOf(byLastArgument);
    this.earlierArguments = Set.copyOf(earlierArguments);
  }

  /** The calls of the checked expression {@code root}. */
  static EvaluationCost of(CelExpr root) {
    Set<String> accumulators = new HashSet<>();
    CelNavigableExpr.fromExpr(root)
        .allNodes()
        .filter(n -> n.getKind() == Kind.COMPREHENSION)
        .forEach(n -> accumulators.add(n.expr().comprehension().accuVar()));
    Map<Long, Call> byLast = new HashMap<>();
    Set<Long> earlier = new HashSet<>();
    CelNavigableExpr.fromExpr(root)
        .allNodes()
        .filter(n -> n.getKind() == Kind.CALL)
        .map(n -> n.expr().call())
        .filter(call -> !NOT_PRICED.contains(call.function()))
        .forEach(
            call -> {
              List<CelExpr> args = new ArrayList<>();
              call.target().ifPresent(args::add);
              args.addAll(call.args());
              if (args.isEmpty()) {
                return;
              }
              CelExpr first = args.get(0);
              boolean appends =
                  call.function().equals("_+_")
                      && first.getKind() == Kind.IDENT
                      && accumulators.contains(first.ident().name());
              List<Long> ids = args.stream().map(CelExpr::id).toList();
              byLast.put(ids.get(ids.size() - 1), new Call(call.function(), ids, appends));
              earlier.addAll(ids.subList(0, ids.size() - 1));
            });
    return new EvaluationCost(byLast, earlier);
  }

  /** Whether the value of the expression {@code id} is needed to price a call evaluated later. */
  boolean isEarlierArgument(long id) {
    return earlierArguments.contains(id);
  }

  /**
   * The price of the call that runs once the expression {@code id} has been evaluated to {@code
   * value}, the values of its other arguments taken from {@code earlier} (and removed), the whole
   * sizes of values read before from {@code known}; 0 if none. A price over {@code cap} may be
   * given as anything over it.
   */
  long priceAfter(
      long id,
      Object value,
      Map<Long, Object> earlier,
      IdentityHashMap<Object, Long> known,
      long cap) {
    Call call = byLastArgument.get(id);
    if (call == null) {
      return 0;
    }
    List<Object> args = new ArrayList<>(call.arguments().size());
    for (Long arg : call.arguments().subList(0, call.arguments().size() - 1)) {
      Object v = earlier.remove(arg);
      args.add(v == null ? MISSING : v);
    }
    args.add(value);
    return price(call, args, known, cap);
  }

  private static long price(
      Call call, List<Object> args, IdentityHashMap<Object, Long> known, long cap) {
    String function = call.function();
    if (function.equals("matches") && args.size() == 2 && args.get(1) instanceof String re) {
      return times(tenths(size(args.get(0)) + 1), RegexSize.of(re));
    }
    if (function.equals("contains") && args.size() == 2) {
      return times(tenths(size(args.get(0))), tenths(size(args.get(1))));
    }
    if (COMPARISONS.contains(function) && args.size() == 2) {
      return tenths(Math.min(wholeSize(args.get(0), known), wholeSize(args.get(1), known)));
    }
    if (function.equals("@in") && args.size() == 2 && args.get(1) instanceof List<?> items) {
      long x = wholeSize(args.get(0), known);
      long price = 0;
      for (Object item : items) {
        price += tenths(Math.min(x, item == null ? 1 : wholeSize(item, known)));
        if (price > cap) {
          break;
        }
      }
      return price;
    }
    if (function.equals("_+_") && args.size() == 2 && args.get(1) instanceof List<?> added) {
      return tenths(call.appends() ? added.size() : size(args.get(0)) + added.size());
    }
    long characters = 0;
    for (Object arg : args) {
      if (arg instanceof String || arg instanceof CelByteString) {
        characters += size(arg);
      }
    }
    return tenths(characters);
  }

  /** Characters of a string, bytes of bytes, items of a list, entries of a map; 1 otherwise. */
  static long size(Object value) {
    if (value instanceof String s) {
      return s.length();
    }
    if (value instanceof CelByteString b) {
      return b.size();
    }
    if (value instanceof List<?> l) {
      return l.size();
    }
    if (value instanceof Map<?, ?> m) {
      return m.size();
    }
    return 1;
  }

  /**
   * The whole size of {@code value}: a list or map 1 plus the whole sizes of what it holds (keys
   * and values), anything else its {@link #size}, at least 1. {@code known} holds the whole sizes
   * of the lists and maps already read in this evaluation (CEL's values do not change), so that
   * each is read once however often it is compared.
   */
  static long wholeSize(Object value, IdentityHashMap<Object, Long> known) {
    if (!(value instanceof List<?>) && !(value instanceof Map<?, ?>)) {
      return Math.max(1, size(value));
    }
    Long seen = known.get(value);
    if (seen != null) {
      return seen;
    }
    long total = 1;
    if (value instanceof List<?> l) {
      for (Object item : l) {
        total += item == null ? 1 : wholeSize(item, known);
      }
    } else if (value instanceof Map<?, ?> m) {
      for (Map.Entry<?, ?> e : m.entrySet()) {
        total += e.getKey() == null ? 1 : wholeSize(e.getKey(), known);
        total += e.getValue() == null ? 1 : wholeSize(e.getValue(), known);
      }
    }
    known.put(value, total);
    return total;
  }

  private static long tenths(long n) {
    return n <= 0 ? 0 : (n + 9) / 10;
  }

  private static long times(long a, long b) {
    return b != 0 && a > Long.MAX_VALUE / 2 / b ? Long.MAX_VALUE / 2 : a * b;
  }
}
