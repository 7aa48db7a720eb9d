package dev.capstan.cli;

import static java.nio.charset.StandardCharsets.UTF_8;
import static java.util.Objects.requireNonNull;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import java.util.zip.ZipOutputStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The launcher ({@code ./capstan}) with the jar this build packaged, each test on a cache folder of
 * its own and a home without a kubeconfig (the in-memory cluster): the JVM it runs (a wrapper that
 * logs its process id and arguments, then execs the real {@code java}) replaces it; the first
 * command of a build records the classes it used (it trains), a JVM started in the background as it
 * exits assembles the build's class cache from them, and no later command trains, also with another
 * build used in between; long-lived commands run with the JVM's server defaults and never train;
 * and the daemon starts beside the first command, unless CI=true, {@code --no-daemon} or
 * CAPSTAN_DAEMON=false, and runs the commands after it.
 */
class LauncherIT {
  private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
  private static final Path JAR = ROOT.resolve("capstan-cli/target/capstan-cli-all.jar");

  @TempDir Path dir;
  private Path cache;
  private Path log;
  private final Map<String, String> env = new HashMap<>();

  @BeforeEach
  void aCacheAHomeAndAJvmThatSaysHowItRan() throws IOException {
    cache = dir.resolve("cache");
    log = dir.resolve("jvm.log");
    Path java = dir.resolve("bin").resolve("java");
    Files.createDirectories(java.getParent());
    Files.writeString(
        java,
        "#!/bin/sh\necho \"$$ $*\" >>'"
            + log
            + "'\nexec '"
            + Path.of(System.getProperty("java.home"), "bin", "java")
            + "' \"$@\"\n");
    assertThat(java.toFile().setExecutable(true)).isTrue();
    env.put("CAPSTAN_CACHE_DIR", cache.toString());
    env.put("CAPSTAN_JAVA", java.toString());
    env.put("HOME", Files.createDirectories(dir.resolve("home")).toString());
    env.put("CAPSTAN_DAEMON_IDLE", "120");
  }

  @AfterEach
  void stopAnyDaemonAndAwaitAnyAssembly() throws Exception {
    run(ROOT, "daemon", "stop");
    awaitNoAssembly();
  }

  /** What a launcher run returned, and its process id. */
  record Ran(int exit, String out, String err, long pid) {}

  private Ran run(Path root, String... args) throws Exception {
    List<String> command = new ArrayList<>(List.of(root.resolve("capstan").toString()));
    command.addAll(List.of(args));
    ProcessBuilder builder = new ProcessBuilder(command).directory(dir.toFile());
    builder.environment().keySet().removeAll(List.of("KUBECONFIG", "CAPSTAN_STATE", "CI"));
    builder.environment().putAll(env);
    builder.redirectOutput(dir.resolve("out.txt").toFile());
    builder.redirectError(dir.resolve("err.txt").toFile());
    Process p = builder.start();
    assertThat(p.waitFor(180, TimeUnit.SECONDS)).as("%s finished", List.of(args)).isTrue();
    return new Ran(
        p.exitValue(),
        Files.readString(dir.resolve("out.txt"), UTF_8),
        Files.readString(dir.resolve("err.txt"), UTF_8),
        p.pid());
  }

  /** The JVM runs the wrapper logged, in order: process id and arguments. */
  private List<String> jvmRuns() throws IOException {
    return Files.exists(log) ? Files.readAllLines(log, UTF_8) : List.of();
  }

  /** The JVMs that ran a command or the daemon (not a class cache's assembly), in order. */
  private List<String> commandRuns() throws IOException {
    return jvmRuns().stream().filter(r -> !assembly(r)).toList();
  }

  /** The JVMs that assembled a class cache. */
  private List<String> assemblies() throws IOException {
    return jvmRuns().stream().filter(LauncherIT::assembly).toList();
  }

  private static boolean assembly(String run) {
    return run.contains("-Xshare:dump") || run.contains("-XX:AOTMode=create");
  }

  private static long trainings(List<String> runs) {
    return runs.stream().filter(r -> r.contains("-XX:DumpLoadedClassList=")).count();
  }

  /** Waits for {@code count} class caches in the build folders, and returns them. */
  private List<Path> awaitClassCaches(int count) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(180);
    while (true) {
      try (Stream<Path> files = Files.walk(cache.resolve("builds"))) {
        List<Path> caches =
            files
                .filter(f -> f.getFileName().toString().matches("classes-.*\\.(jsa|aot)"))
                .sorted()
                .toList();
        if (caches.size() >= count || System.nanoTime() > deadline) {
          return caches;
        }
      }
      Thread.sleep(100);
    }
  }

  /** Waits until no class cache is being assembled (a launcher started one in the background). */
  private void awaitNoAssembly() throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(180);
    while (Files.isDirectory(cache.resolve("builds"))) {
      try (Stream<Path> files = Files.walk(cache.resolve("builds"))) {
        if (files.noneMatch(f -> f.getFileName().toString().startsWith(".assembling-"))) {
          return;
        }
      }
      if (System.nanoTime() > deadline) {
        throw new AssertionError("a class cache is still being assembled: " + jvmRuns());
      }
      Thread.sleep(100);
    }
  }

  @Test
  void theJvmReplacesTheLauncherAndABuildTrainsItsClassCacheOnce() throws Exception {
    env.put("CAPSTAN_DAEMON", "false");

    Ran first = run(ROOT, "release", "list", "-n", "demo");
    // assembled in the background once the first command exited, with no other command run
    List<Path> caches = awaitClassCaches(1);
    Ran second = run(ROOT, "release", "list", "-n", "demo");
    Ran third = run(ROOT, "--version");

    assertThat(first.exit()).as(first.err()).isZero();
    assertThat(second.out()).isEqualTo(first.out()).startsWith("NAME  REVISION");
    assertThat(third.exit()).isZero();
    List<String> runs = commandRuns();
    assertThat(runs).hasSize(3);
    // exec: the JVM has the launcher's process id, so a signal to the launcher reaches it
    assertThat(runs.get(0)).startsWith(first.pid() + " ");
    assertThat(runs.get(1)).startsWith(second.pid() + " ");
    assertThat(runs.get(0))
        .contains("-XX:TieredStopAtLevel=1 -XX:+UseSerialGC")
        .contains("-XX:DumpLoadedClassList=" + cache.resolve("builds"))
        .contains("dev.capstan.cli.Main release list -n demo");
    assertThat(runs.get(1))
        .contains("-XX:SharedArchiveFile=" + caches.get(0) + " ")
        .doesNotContain("DumpLoadedClassList");
    assertThat(assemblies())
        .singleElement()
        .satisfies(
            a ->
                assertThat(a)
                    .contains("-XX:TieredStopAtLevel=1 -XX:+UseSerialGC")
                    .contains("-Xshare:dump -XX:SharedClassListFile=")
                    .contains("-cp " + cache.resolve("builds")));
    assertThat(runs.get(2)).contains("-XX:SharedArchiveFile=" + caches.get(0) + " ");
    Path build = requireNonNull(caches.get(0).getParent());
    assertThat(build.resolve("capstan-cli.jar")).hasSameBinaryContentAs(JAR);
    assertThat(caches).singleElement().satisfies(f -> assertThat(f.toString()).endsWith(".jsa"));
    try (Stream<Path> files = Files.list(build)) {
      assertThat(files.map(f -> f.getFileName().toString()))
          .as("the class list and the assembly's files are gone")
          .noneMatch(f -> f.startsWith("."));
    }
  }

  @Test
  void twoBuildsAlternatingTrainOnceEachAndNeverEvictEachOther() throws Exception {
    env.put("CAPSTAN_DAEMON", "false");
    Path other = anotherBuild();

    for (int i = 0; i < 2; i++) {
      Ran ran = run(i % 2 == 0 ? ROOT : other, "release", "list", "-n", "demo");
      assertThat(ran.exit()).as(ran.err()).isZero();
    }
    // each build's cache, assembled in the background as its first command exited
    List<Path> caches = awaitClassCaches(2);
    for (int i = 2; i < 20; i++) {
      Ran ran = run(i % 2 == 0 ? ROOT : other, "release", "list", "-n", "demo");
      assertThat(ran.exit()).as(ran.err()).isZero();
    }

    List<String> runs = commandRuns();
    assertThat(runs).hasSize(20);
    assertThat(trainings(runs.subList(0, 2))).isEqualTo(2);
    assertThat(trainings(runs.subList(2, 20))).as("no training after the first of each").isZero();
    assertThat(assemblies()).as("one assembly per build").hasSize(2);
    assertThat(caches).hasSize(2);
    assertThat(caches.get(0).getParent()).isNotEqualTo(caches.get(1).getParent());
    // neither build evicted the other's cache: every later run mapped its own build's
    assertThat(runs.subList(2, 20))
        .allMatch(
            r ->
                r.contains("-XX:SharedArchiveFile=" + caches.get(0) + " ")
                    || r.contains("-XX:SharedArchiveFile=" + caches.get(1) + " "));
    assertThat(runs.subList(2, 20))
        .filteredOn(r -> r.contains("-XX:SharedArchiveFile=" + caches.get(0) + " "))
        .hasSize(9);
    try (Stream<Path> builds = Files.list(cache.resolve("builds"))) {
      assertThat(builds).hasSize(2);
    }
  }

  @Test
  void longLivedCommandsRunWithServerDefaultsAndNeverTrain() throws Exception {
    env.put("CAPSTAN_DAEMON", "false");
    Path kubeconfig = RefusingKubeconfig.write(dir);

    Ran controller = run(ROOT, "--kubeconfig", kubeconfig.toString(), "controller", "run");

    assertThat(controller.exit()).isEqualTo(ExitCode.FAILED);
    assertThat(controller.err())
        .isEqualTo(
            "capstan: cannot reach the API server https://127.0.0.1:1 of context 'ctx': the"
                + " connection was refused; nothing was sent\n");
    assertThat(jvmRuns())
        .singleElement()
        .satisfies(
            r ->
                assertThat(r)
                    .startsWith(controller.pid() + " ")
                    .doesNotContain("TieredStopAtLevel")
                    .doesNotContain("UseSerialGC")
                    .doesNotContain("DumpLoadedClassList"));
  }

  @Test
  void theDaemonStartsBesideTheFirstCommandAndRunsTheNext() throws Exception {
    Ran first = run(ROOT, "release", "list", "-n", "demo");
    assertThat(first.exit()).as(first.err()).isZero();
    Path socket = awaitSocket();

    Ran second = run(ROOT, "release", "list", "-n", "demo");
    Ran status = run(ROOT, "daemon", "status");

    assertThat(second.out()).isEqualTo(first.out());
    assertThat(status.out())
        .startsWith("capstan daemon: running, pid ")
        .contains(", 1 commands run,")
        .contains("socket " + socket);
    assertThat(Files.getPosixFilePermissions(socket.getParent()))
        .as("the build's folder is this user's only")
        .containsExactlyInAnyOrder(
            java.nio.file.attribute.PosixFilePermission.OWNER_READ,
            java.nio.file.attribute.PosixFilePermission.OWNER_WRITE,
            java.nio.file.attribute.PosixFilePermission.OWNER_EXECUTE);
    // the daemon and the first command: two JVMs (the command's in the launcher's process); the
    // second command ran in the daemon
    assertThat(commandRuns())
        .hasSize(2)
        .anySatisfy(r -> assertThat(r).startsWith(first.pid() + " ").contains("cli.Main release"))
        .anySatisfy(r -> assertThat(r).contains("dev.capstan.cli.daemon.DaemonMain"));
  }

  @Test
  void noDaemonStartsUnderCiWithNoDaemonOrWithCapstanDaemonFalse() throws Exception {
    env.put("CI", "true");
    assertThat(run(ROOT, "release", "list", "-n", "demo").exit()).isZero();
    env.remove("CI");
    assertThat(run(ROOT, "--no-daemon", "release", "list", "-n", "demo").exit()).isZero();
    env.put("CAPSTAN_DAEMON", "false");
    assertThat(run(ROOT, "release", "list", "-n", "demo").exit()).isZero();

    Thread.sleep(1000);
    assertThat(commandRuns()).hasSize(3).noneMatch(r -> r.contains("DaemonMain"));
    try (Stream<Path> files = Files.walk(cache)) {
      assertThat(files.map(Path::getFileName).map(Path::toString))
          .doesNotContain("daemon.sock", "daemon.pid");
    }
  }

  /** Waits for the build's daemon socket. */
  private Path awaitSocket() throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (System.nanoTime() < deadline) {
      try (Stream<Path> files = Files.walk(cache)) {
        var socket =
            files.filter(f -> f.getFileName().toString().equals("daemon.sock")).findFirst();
        if (socket.isPresent()) {
          return socket.get();
        }
      }
      Thread.sleep(50);
    }
    throw new AssertionError("the daemon did not start: " + jvmRuns());
  }

  /**
   * A second checkout as the launcher sees one: the launcher, its daemon client, and a jar of other
   * content (this build's, with one more entry), in a folder of its own.
   */
  private Path anotherBuild() throws IOException {
    Path other = dir.resolve("other");
    Path jar = other.resolve("capstan-cli/target/capstan-cli-all.jar");
    Files.createDirectories(jar.getParent());
    Files.createDirectories(other.resolve("capstan-cli/src/main/scripts"));
    Files.copy(ROOT.resolve("capstan"), other.resolve("capstan"));
    Files.copy(
        ROOT.resolve("capstan-cli/src/main/scripts/capstan-client.pl"),
        other.resolve("capstan-cli/src/main/scripts/capstan-client.pl"));
    try (ZipFile in = new ZipFile(JAR.toFile());
        ZipOutputStream out = new ZipOutputStream(Files.newOutputStream(jar))) {
      Enumeration<? extends ZipEntry> entries = in.entries();
      while (entries.hasMoreElements()) {
        ZipEntry e = entries.nextElement();
        out.putNextEntry(new ZipEntry(e.getName()));
        try (InputStream data = in.getInputStream(e)) {
          data.transferTo(out);
        }
        out.closeEntry();
      }
      out.putNextEntry(new ZipEntry("another-build.txt"));
      out.write("another build\n".getBytes(UTF_8));
      out.closeEntry();
    }
    assertThat(other.resolve("capstan").toFile().setExecutable(true)).isTrue();
    return other;
  }
}
