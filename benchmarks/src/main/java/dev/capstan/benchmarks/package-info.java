/** JMH benchmarks; run with {@code java -jar benchmarks/target/benchmarks-all.jar}. */
@NullMarked
package dev.capstan.benchmarks;

import org.jspecify.annotations.NullMarked;
