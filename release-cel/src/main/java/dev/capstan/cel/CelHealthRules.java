package dev.capstan.cel;

import dev.capstan.common.Escapes;
import dev.capstan.common.health.CustomHealth;
import dev.capstan.common.health.HealthRule;
import dev.capstan.common.health.HealthRuleCompiler;
import dev.capstan.common.health.InvalidHealthRulesException;
import dev.cel.common.CelAbstractSyntaxTree;
import dev.cel.common.CelIssue;
import dev.cel.common.CelOptions;
import dev.cel.common.CelValidationException;
import dev.cel.common.CelValidationResult;
import dev.cel.common.types.SimpleType;
import dev.cel.compiler.CelCompiler;
import dev.cel.compiler.CelCompilerFactory;
import dev.cel.parser.CelStandardMacro;
import dev.cel.runtime.CelEvaluationException;
import dev.cel.runtime.CelRuntime;
import dev.cel.runtime.CelRuntimeFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;

/**
 * The CEL {@link HealthRuleCompiler} (ARCHITECTURE.md, "Health rules in CEL"): each expression is
 * parsed and type-checked as a {@code bool} over {@code self} (the object, {@code dyn}) with the
 * standard macros ({@code has}, {@code exists}, {@code all}, {@code map}, {@code filter}), and its
 * estimated cost held to {@link #MAX_COST}; a bad one is refused with its rule, field and position.
 * The rules compiled are the caller's over {@link ShippedRules} (a user's rule for a kind replaces
 * the shipped one). An evaluation stops after {@link #MAX_ITERATIONS} loop iterations, a cost of
 * {@link #MAX_EVALUATION_COST} counted as it runs ({@link EvaluationCost}: what it reads, compares
 * and makes, whatever the object holds) or {@link #MAX_EVALUATION_TIME}, and fails the object
 * saying so. CEL is built, and the shipped defaults compiled, only when a rule is compiled or a
 * shipped one judges an object: a cast whose objects no rule covers does not pay for it.
 */
public final class CelHealthRules implements HealthRuleCompiler {
  /** The highest estimated cost of one expression ({@link CelCost}). */
  public static final long MAX_COST = 20_000;

  /** The items a list is taken to hold by the cost estimate. */
  public static final int ASSUMED_LIST_SIZE = 100;

  /** The most loop iterations one evaluation makes before it fails. */
  public static final int MAX_ITERATIONS = 10_000;

  /**
   * The highest cost of one evaluation of an expression, counted as it runs ({@link
   * EvaluationCost}; Kubernetes' limit for one validation rule): it bounds the memory an evaluation
   * takes and, with {@link #MAX_EVALUATION_TIME}, its time, whatever the object holds.
   */
  public static final long MAX_EVALUATION_COST = 1_000_000;

  /** The longest one evaluation of an expression runs before it fails. */
  public static final Duration MAX_EVALUATION_TIME = Duration.ofSeconds(1);

  /** The shipped defaults as written: read at once (cheap), compiled on first use. */
  private static final List<HealthRule> SHIPPED = ShippedRules.read();

  /**
   * CEL's compiler and runtime, built on first use: building them and compiling the shipped
   * defaults takes seconds on a cold JVM, which a cast that no rule judges never pays.
   */
  private static final class Cel {
    static final CelOptions OPTIONS =
        CelOptions.current()
            .comprehensionMaxIterations(MAX_ITERATIONS)
            .maxExpressionCodePointSize(HealthRule.MAX_EXPRESSION)
            .enableHeterogeneousNumericComparisons(true)
            .build();

    static final CelCompiler COMPILER =
        CelCompilerFactory.standardCelCompilerBuilder()
            .setOptions(OPTIONS)
            .setStandardMacros(CelStandardMacro.STANDARD_MACROS)
            .addVar("self", SimpleType.DYN)
            .setResultType(SimpleType.BOOL)
            .build();

    static final CelRuntime RUNTIME =
        CelRuntimeFactory.legacyCelRuntimeBuilder().setOptions(OPTIONS).build();

    private Cel() {}
  }

  /** The shipped defaults compiled, in the order of {@link #SHIPPED}, on first use. */
  private static final class Shipped {
    static final List<CompiledRule> RULES = compileShipped();

    private Shipped() {}
  }

  /** The clock of the evaluations' time limit. */
  private final LongSupplier nanoTime;

  /** The compiler ({@link java.util.ServiceLoader} makes it). */
  public CelHealthRules() {
    this(System::nanoTime);
  }

  /** A compiler whose rules time their evaluations by {@code nanoTime} (tests). */
  CelHealthRules(LongSupplier nanoTime) {
    this.nanoTime = nanoTime;
  }

  @Override
  public CustomHealth compile(List<HealthRule> rules) {
    List<String> problems = new ArrayList<>();
    List<CompiledRule> compiled = new ArrayList<>();
    for (int i = 0; i < rules.size(); i++) {
      CompiledRule c = compile(rules.get(i), "healthRules[" + i + "]", false, problems);
      if (c != null) {
        compiled.add(c);
      }
    }
    if (!problems.isEmpty()) {
      throw new InvalidHealthRulesException(problems);
    }
    return new RuleSet(compiled, SHIPPED, () -> Shipped.RULES, nanoTime);
  }

  /** The shipped defaults, as written ({@link ShippedRules}). */
  public static List<HealthRule> shipped() {
    return SHIPPED;
  }

  private static List<CompiledRule> compileShipped() {
    List<String> problems = new ArrayList<>();
    List<CompiledRule> out = new ArrayList<>();
    for (int i = 0; i < SHIPPED.size(); i++) {
      CompiledRule c = compile(SHIPPED.get(i), "shipped[" + i + "]", true, problems);
      if (c != null) {
        out.add(c);
      }
    }
    if (!problems.isEmpty()) {
      throw new IllegalStateException("shipped health rules do not compile: " + problems);
    }
    return List.copyOf(out);
  }

  private static @Nullable CompiledRule compile(
      HealthRule rule, String at, boolean shipped, List<String> problems) {
    String where = at + " (" + Escapes.escape(rule.kind()) + ")";
    List<List<String>> reads = new ArrayList<>();
    CompiledRule.Expression current = expression(rule.current(), where, "current", reads, problems);
    CompiledRule.Expression inProgress =
        rule.inProgress() == null
            ? null
            : expression(rule.inProgress(), where, "inProgress", reads, problems);
    CompiledRule.Expression failed =
        rule.failed() == null ? null : expression(rule.failed(), where, "failed", reads, problems);
    if (current == null
        || (rule.inProgress() != null && inProgress == null)
        || (rule.failed() != null && failed == null)) {
      return null;
    }
    return new CompiledRule(
        rule, current, inProgress, failed, Seen.outermost(distinct(reads)), shipped);
  }

  private static List<List<String>> distinct(List<List<String>> paths) {
    return new ArrayList<>(new java.util.LinkedHashSet<>(paths));
  }

  /** Compiles one expression, or adds its problems (each with its position) and returns null. */
  private static CompiledRule.@Nullable Expression expression(
      String expression,
      String where,
      String field,
      List<List<String>> reads,
      List<String> problems) {
    String at = where + "." + field;
    CelValidationResult result = Cel.COMPILER.compile(expression);
    if (result.hasError()) {
      for (CelIssue issue : result.getErrors()) {
        problems.add(
            at
                + ": "
                + issue.getSourceLocation().getLine()
                + ":"
                + (issue.getSourceLocation().getColumn() + 1)
                + ": "
                + Escapes.escape(issue.getMessage()));
      }
      return null;
    }
    CelAbstractSyntaxTree ast;
    try {
      ast = result.getAst();
    } catch (CelValidationException e) {
      problems.add(at + ": " + Escapes.escape(String.valueOf(e.getMessage())));
      return null;
    }
    long cost = CelCost.of(ast.getExpr());
    if (cost > MAX_COST) {
      problems.add(
          at
              + ": estimated cost "
              + cost
              + " is over the limit of "
              + MAX_COST
              + " (each loop over a list is taken to make "
              + ASSUMED_LIST_SIZE
              + " iterations; a loop inside a loop costs their product): "
              + Escapes.quote(expression));
      return null;
    }
    reads.addAll(Seen.paths(ast.getExpr()));
    try {
      return new CompiledRule.Expression(
          field, Cel.RUNTIME.createProgram(ast), EvaluationCost.of(ast.getExpr()));
    } catch (CelEvaluationException e) {
      problems.add(at + ": " + Escapes.escape(String.valueOf(e.getMessage())));
      return null;
    }
  }
}
