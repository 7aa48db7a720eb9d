/**
 * Taking a Helm release over as a Capstan release, without downtime.
 *
 * <p>{@link dev.capstan.helm.HelmRecords} is the pure decoder of Helm's release records (the Secret
 * and ConfigMap storage drivers of Helm 3 and 4: base64 of gzip of JSON, named {@code
 * sh.helm.release.v1.NAME.vN}), with strict limits and errors that name the record and the rule.
 * {@link dev.capstan.helm.HelmImport} reads those records through the Kubernetes API, plans a
 * Capstan release that adopts every live object of the deployed revision, records Helm's revisions
 * as Capstan history, casts (stamps only), and hands the objects' field ownership from Helm's field
 * manager to Capstan's. See ARCHITECTURE.md, "Coming from Helm".
 */
@NullMarked
package dev.capstan.helm;

import org.jspecify.annotations.NullMarked;
