/**
 * Health rules in CEL (ARCHITECTURE.md, "Health rules in CEL"): {@link
 * dev.capstan.cel.CelHealthRules} compiles users' {@link dev.capstan.common.health.HealthRule}s and
 * the shipped defaults for widely used custom resources, behind capstan-common's {@link
 * dev.capstan.common.health.HealthRuleCompiler} port (found with {@link java.util.ServiceLoader}).
 * Each expression is parsed and type-checked over {@code self} (the object) when the rules are
 * loaded, refused with its position, and held to an estimated cost; each evaluation is held to
 * limits of iterations, cost counted as it runs ({@link dev.capstan.cel.EvaluationCost}) and time,
 * whatever the object holds; a verdict's reason names the rule, the expression that decided and the
 * values of the fields the rule reads.
 */
@NullMarked
package dev.capstan.cel;

import org.jspecify.annotations.NullMarked;
