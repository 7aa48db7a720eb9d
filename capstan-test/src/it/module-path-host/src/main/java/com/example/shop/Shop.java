package com.example.shop;

import dev.capstan.common.InputLimits;
import dev.capstan.common.StrictDocuments;
import dev.capstan.jdbc.JdbcStore;
import dev.capstan.release.ReleaseController;
import dev.capstan.release.codec.PlanCodec;
import dev.capstan.release.codec.ReleaseRecordCodec;
import dev.capstan.release.memory.InMemoryCluster;
import dev.capstan.release.model.Payloads;
import dev.capstan.release.model.Release;
import dev.capstan.release.model.ReleaseInput;
import dev.capstan.release.plan.Plan;
import dev.capstan.release.plan.PlanRenderer;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;

/** The shop's release, read from YAML manifests, planned and cast on an in-memory cluster. */
public final class Shop {
  private final InMemoryCluster cluster = InMemoryCluster.create().addNamespace("shop");
  private final ReleaseController releases;

  /** The shop on an in-memory cluster, its records there too. */
  public Shop() {
    this.releases = ReleaseController.builder(cluster, cluster).build();
  }

  /** The shop on an in-memory cluster, its records in the SQL database {@code records}. */
  public Shop(DataSource records) {
    JdbcStore store = JdbcStore.create(records);
    store.migrate();
    this.releases = ReleaseController.builder(cluster, store).build();
  }

  /** The revisions recorded of the shop, newest first. */
  public List<Release> history() {
    return releases.history("shop", "web");
  }

  /** The release of the manifests in {@code yaml} (a multi-document stream). */
  @SuppressWarnings("unchecked")
  public static ReleaseInput release(String yaml) {
    Payloads.Builder payloads = Payloads.builder().namespace("shop");
    for (Object document : StrictDocuments.readYaml(yaml, InputLimits.oneDocument().withMaxDocuments(10))) {
      payloads.manifest((Map<String, Object>) document);
    }
    return ReleaseInput.of("shop", "web", payloads.build());
  }

  /** The plan of {@code release}, as text. */
  public String plan(ReleaseInput release) {
    return PlanRenderer.text(releases.plan(release));
  }

  /** Casts {@code release}: the recorded revision. */
  public Release cast(ReleaseInput release) {
    return releases.cast(release).release();
  }

  /** The revision written by the record codec and read back, as a store keeps it. */
  public static Release recorded(Release release) {
    return ReleaseRecordCodec.decode(ReleaseRecordCodec.encode(release));
  }

  /** The plan written to a plan file and read back. */
  public Plan planFile(ReleaseInput release) {
    return PlanCodec.decode(PlanCodec.encode(releases.plan(release)));
  }
}
