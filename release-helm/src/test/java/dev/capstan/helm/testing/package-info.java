// Chart sources for tests, on 127.0.0.1 only: a CA of their own (TestCa), an HTTPS chart
// repository with Basic authentication (ChartRepositoryServer) and an OCI registry with TLS and
// htpasswd (SecureRegistry). Shared with the CLI's ITs through the test-jar.
@NullMarked
package dev.capstan.helm.testing;

import org.jspecify.annotations.NullMarked;
