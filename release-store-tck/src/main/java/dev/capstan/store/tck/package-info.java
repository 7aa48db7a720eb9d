/**
 * The behaviour every {@link dev.capstan.release.port.Store} must have, as JUnit 5 tests a store's
 * author runs: extend {@link dev.capstan.store.tck.StoreContract} in test scope and return a store
 * from {@link dev.capstan.store.tck.StoreContract#newStore()}. Capstan runs it against the
 * in-memory store, the JDBC store on PostgreSQL and H2, and the Kubernetes store.
 */
@NullMarked
package dev.capstan.store.tck;

import org.jspecify.annotations.NullMarked;
