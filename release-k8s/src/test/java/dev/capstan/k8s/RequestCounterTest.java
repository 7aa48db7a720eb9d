package dev.capstan.k8s;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import java.util.concurrent.CountDownLatch;
import okhttp3.HttpUrl;
import okhttp3.MediaType;
import okhttp3.Request;
import okhttp3.RequestBody;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class RequestCounterTest {

  @ParameterizedTest(name = "{0} {1} -> {2}")
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
          GET    | /api/v1/namespaces/shop/secrets                                  | LIST secrets shop
          GET    | /api/v1/namespaces/shop/secrets?labelSelector=owner%3Dcapstan    | LIST secrets shop
          GET    | /api/v1/namespaces/shop/secrets/creds                            | GET secrets shop/creds
          GET    | /apis/apps/v1/namespaces/shop/deployments?watch=true             | WATCH deployments shop
          PATCH  | /apis/apps/v1/namespaces/shop/deployments/web                    | PATCH deployments shop/web
          PUT    | /apis/apps/v1/namespaces/shop/deployments/web/status             | UPDATE deployments/status shop/web
          POST   | /apis/coordination.k8s.io/v1/namespaces/shop/leases              | CREATE leases shop
          DELETE | /api/v1/namespaces/shop/secrets?labelSelector=version%3D3        | DELETECOLLECTION secrets shop
          DELETE | /api/v1/namespaces/shop/configmaps/settings                      | DELETE configmaps shop/settings
          GET    | /api/v1/namespaces                                               | LIST namespaces
          GET    | /api/v1/namespaces/kube-system                                   | GET namespaces kube-system
          POST   | /api/v1/namespaces                                               | CREATE namespaces
          GET    | /apis/storage.k8s.io/v1/storageclasses                           | LIST storageclasses
          PATCH  | /apis/apiextensions.k8s.io/v1/customresourcedefinitions/w.ex.com | PATCH customresourcedefinitions w.ex.com
          PATCH  | /apis/apiextensions.k8s.io/v1/customresourcedefinitions/w.ex.com?dryRun=All | DRYRUN-PATCH customresourcedefinitions w.ex.com
          POST   | /api/v1/namespaces/shop/configmaps?dryRun=All                    | DRYRUN-CREATE configmaps shop
          GET    | /version                                                         | GET /version
          """)
  void namesEachRequestByVerbResourceAndObject(String method, String path, String line) {
    RequestCounter.Call call =
        RequestCounter.describe(method, HttpUrl.get("https://127.0.0.1:6443" + path));

    assertThat(call.line()).isEqualTo(line);
  }

  @Test
  void requestsAThreadSendsInsideBackgroundAreCountedApart() throws Exception {
    RequestCounter counter = new RequestCounter();
    String lease = "https://127.0.0.1:6443/apis/coordination.k8s.io/v1/namespaces/shop/leases/l";
    Request get = new Request.Builder().url(lease).build();
    Request update =
        new Request.Builder()
            .url(lease)
            .put(RequestBody.create("{}", MediaType.get("application/json")))
            .build();
    Request list =
        new Request.Builder().url("https://127.0.0.1:6443/api/v1/namespaces/shop/secrets").build();
    CountDownLatch renewing = new CountDownLatch(1);
    CountDownLatch foregroundSent = new CountDownLatch(1);
    Thread renewer =
        new Thread(
            () ->
                counter.background(
                    () -> {
                      counter.record(get);
                      renewing.countDown();
                      try {
                        foregroundSent.await();
                      } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                      }
                      // nested: still background
                      return counter.background(
                          () -> {
                            counter.record(update);
                            return true;
                          });
                    }));
    renewer.start();
    renewing.await();
    counter.record(list); // another thread, while the renewal runs: counted as usual
    foregroundSent.countDown();
    renewer.join();
    counter.record(get); // the renewer is done: a GET of the Lease outside is counted as usual

    assertThat(counter.counts())
        .containsExactlyInAnyOrderEntriesOf(Map.of("GET leases", 1L, "LIST secrets", 1L));
    assertThat(counter.backgroundCounts())
        .containsExactlyInAnyOrderEntriesOf(Map.of("GET leases", 1L, "UPDATE leases", 1L));
    assertThat(counter.total()).isEqualTo(2);
    assertThat(counter.log()).containsExactly("LIST secrets shop", "GET leases shop/l");

    counter.reset();
    assertThat(counter.counts()).isEmpty();
    assertThat(counter.backgroundCounts()).isEmpty();
  }
}
