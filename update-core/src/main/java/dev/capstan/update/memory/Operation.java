package dev.capstan.update.memory;

/** The calls of the in-memory cluster that {@link dev.capstan.common.FaultPlan} can make fail. */
public enum Operation {
  /** {@code inventory}; target {@code *}. */
  INVENTORY,
  /** {@code deployment}; target {@code namespace/name}. */
  GET_DEPLOYMENT,
  /** {@code patch}; target {@code namespace/name}. */
  PATCH,
  /** {@code rolloutStatus}; target {@code namespace/name}. */
  ROLLOUT_STATUS,
  /** {@code crd}; target the CRD name. */
  GET_CRD,
  /** {@code applyCrd}; target the CRD name. */
  APPLY_CRD
}
