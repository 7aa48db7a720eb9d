package dev.capstan.k8s;

import static org.assertj.core.api.Assertions.assertThat;

import okhttp3.HttpUrl;
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
}
