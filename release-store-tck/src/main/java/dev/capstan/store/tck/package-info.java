/**
 * The test kit of Capstan's three ports: the behaviour every implementation must have, as JUnit 5
 * tests its author runs in test scope. Extend {@link dev.capstan.store.tck.StoreContract} and
 * return a store from {@link dev.capstan.store.tck.StoreContract#newStore()} (release-core's {@link
 * dev.capstan.release.port.Store}); extend {@link dev.capstan.store.tck.OrchestratorContract} and
 * return an orchestrator from {@link dev.capstan.store.tck.OrchestratorContract#newOrchestrator()}
 * (release-core's {@link dev.capstan.release.port.Orchestrator}); extend {@link
 * dev.capstan.store.tck.PlatformClusterContract} and return a cluster with the given Deployment
 * installed from {@link dev.capstan.store.tck.PlatformClusterContract#newCluster} (update-core's
 * {@link dev.capstan.update.cluster.PlatformCluster}). Capstan runs them against its in-memory
 * implementations, the JDBC store on PostgreSQL and H2, and the Kubernetes adapters.
 */
@NullMarked
package dev.capstan.store.tck;

import org.jspecify.annotations.NullMarked;
