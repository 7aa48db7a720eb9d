/**
 * The test kit for host applications: {@link dev.capstan.test.CapstanTest} gives each test a fresh
 * {@code InMemoryCluster} (releases), {@code InMemoryPlatformCluster} (platform updates) and, if
 * asked, a {@code ReleaseController} on them, as parameters or {@link dev.capstan.test.InMemory}
 * fields; {@link dev.capstan.test.CapstanAssertions} asserts over the writes they recorded
 * ("applied in this order", "wrote nothing", "pruned last", "never touched").
 */
@NullMarked
package dev.capstan.test;

import org.jspecify.annotations.NullMarked;
