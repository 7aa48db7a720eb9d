package dev.capstan.cli.daemon;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.capstan.cli.Cli;
import dev.capstan.cli.CliRun;
import dev.capstan.cli.KubeConnections;
import dev.capstan.cli.Terminal;
import dev.capstan.cli.daemon.FrameChannel.Frame;
import dev.capstan.k8s.KubeClients;
import dev.capstan.release.memory.InMemoryCluster;
import dev.capstan.release.model.Release;
import dev.capstan.release.model.ReleaseStatus;
import dev.capstan.release.port.StoredRelease;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The daemon runs each command as {@link Cli#run} would in a process of its own: the client's
 * arguments, environment, directory and terminal, its output and exit code; several at once, up to
 * its bound; and a client that goes away mid-command stops that command alone.
 */
class DaemonTest {
  @TempDir Path dir;

  private final AtomicLong clock = new AtomicLong();
  private final CountDownLatch abandoned = new CountDownLatch(1);
  private final BlockingQueue<String> log = new LinkedBlockingQueue<>();
  private final Map<String, String> env = Map.of("WEB_DB_PASSWORD", "pw-from-env");
  private @Nullable Daemon daemon;
  private Path socket = Path.of("unset");
  private @Nullable Thread serving;

  @BeforeEach
  void start() throws IOException {
    Path examples = Path.of("../examples/releases");
    Files.copy(examples.resolve("web-v1.yaml"), dir.resolve("web-v1.yaml"));
    Files.copy(examples.resolve("web-v2.yaml"), dir.resolve("web-v2.yaml"));
    socket = dir.resolve("run/d.sock");
    daemon = startDaemon(Duration.ofMinutes(30));
  }

  private Daemon startDaemon(Duration idle) throws IOException {
    return startDaemon(Daemon.Settings.of(idle), new CachedKubeConnections());
  }

  private Daemon startDaemon(Daemon.Settings settings, KubeConnections connections)
      throws IOException {
    Daemon d =
        Daemon.bind(socket, settings, connections, abandoned::countDown, log::add, clock::get);
    serving = new Thread(d::serve, "test-daemon");
    serving.start();
    return d;
  }

  /** Replaces the daemon with one of {@code jobs} places, {@code grace} and {@code connections}. */
  private void restart(int jobs, Duration grace, KubeConnections connections) throws Exception {
    daemon().close();
    serving().join(10_000);
    daemon = startDaemon(new Daemon.Settings(Duration.ofMinutes(30), jobs, grace), connections);
  }

  @AfterEach
  void stop() throws InterruptedException {
    if (daemon != null) {
      daemon.close();
    }
    if (serving != null) {
      serving.join(10_000);
    }
  }

  /** What a client saw: the frames' text by stream, the questions, the exit code. */
  record Seen(String out, String err, List<String> questions, int exit, boolean busy) {}

  /** A client: sends the request, answers each question with the next of {@code answers}. */
  private Seen client(
      Map<String, String> env, boolean interactive, List<String> answers, String... args)
      throws IOException {
    try (FrameChannel frames = request(env, interactive, args)) {
      return seen(frames, new ArrayList<>(answers));
    }
  }

  /** Connects and sends a command, as the launcher's client does. */
  private FrameChannel request(Map<String, String> env, boolean interactive, String... args)
      throws IOException {
    FrameChannel frames = new FrameChannel(SocketChannel.open(UnixDomainSocketAddress.of(socket)));
    frames.write('V', "1");
    frames.write('D', dir.toString());
    for (Map.Entry<String, String> e : new TreeMap<>(env).entrySet()) {
      frames.write('E', e.getKey() + "=" + e.getValue());
    }
    frames.write('T', interactive ? "1" : "0");
    for (String arg : args) {
      frames.write('A', arg);
    }
    frames.write('R', "");
    return frames;
  }

  /** An interactive {@code release uninstall web} sent, up to its question (left unanswered). */
  private FrameChannel uninstallAwaitingAnswer() throws IOException {
    return uninstallAwaitingAnswer(Map.of());
  }

  private FrameChannel uninstallAwaitingAnswer(Map<String, String> env) throws IOException {
    FrameChannel frames = request(env, true, "release", "uninstall", "web", "-n", "demo");
    Frame question;
    StringBuilder err = new StringBuilder();
    do {
      question = frames.read();
      if (question != null && question.type() == '2') {
        err.append(question.text());
      }
    } while (question != null && question.type() != '?');
    assertThat(question).isNotNull();
    errBeforeQuestion.put(frames, err.toString());
    return frames;
  }

  /**
   * What each command {@link #uninstallAwaitingAnswer} sent printed on stderr before its question.
   */
  private final java.util.IdentityHashMap<FrameChannel, String> errBeforeQuestion =
      new java.util.IdentityHashMap<>();

  /** The environment with the in-memory cluster's state in {@code name} (a cluster of its own). */
  private Map<String, String> stateIn(String name) {
    Map<String, String> with = new TreeMap<>(env);
    with.put("CAPSTAN_STATE", dir.resolve(name).toString());
    return with;
  }

  /** The in-memory cluster a command left in the state file {@code name}. */
  private InMemoryCluster cluster(String name) throws IOException {
    JsonNode state = new ObjectMapper().readTree(Files.readAllBytes(dir.resolve(name)));
    return InMemoryCluster.importState(new ObjectMapper().writeValueAsBytes(state.get("releases")));
  }

  /** Reads frames until standard error has {@code text}, keeping what came. */
  private static String readErrUntil(FrameChannel frames, String text) throws IOException {
    StringBuilder err = new StringBuilder();
    while (!err.toString().contains(text)) {
      Frame frame = frames.read();
      if (frame == null) {
        throw new IOException("the daemon closed the connection before: " + text);
      }
      if (frame.type() == '2') {
        err.append(frame.text());
      }
    }
    return err.toString();
  }

  /** A terminal that answers each question with the next of {@code answers}. */
  private static Terminal answering(String... answers) {
    List<String> left = new ArrayList<>(List.of(answers));
    return new Terminal() {
      @Override
      public boolean interactive() {
        return true;
      }

      @Override
      public @Nullable String ask(String question) {
        return left.isEmpty() ? null : left.remove(0);
      }
    };
  }

  private Seen control(char kind) throws IOException {
    try (FrameChannel frames =
        new FrameChannel(SocketChannel.open(UnixDomainSocketAddress.of(socket)))) {
      frames.write('V', "1");
      frames.write(kind, "");
      return seen(frames, List.of());
    }
  }

  private static Seen seen(FrameChannel frames, List<String> answers) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    List<String> questions = new ArrayList<>();
    while (true) {
      Frame frame = frames.read();
      if (frame == null) {
        throw new IOException("the daemon closed the connection without an exit code");
      }
      switch (frame.type()) {
        case '1' -> out.writeBytes(frame.payload());
        case '2' -> err.writeBytes(frame.payload());
        case '?' -> {
          questions.add(frame.text());
          if (answers.isEmpty()) {
            frames.write('Z', "");
          } else {
            frames.write('L', answers.remove(0));
          }
        }
        case 'B' -> {
          return new Seen("", "", questions, -1, true);
        }
        case 'X' -> {
          return new Seen(
              out.toString(StandardCharsets.UTF_8),
              err.toString(StandardCharsets.UTF_8),
              questions,
              Integer.parseInt(frame.text()),
              false);
        }
        default -> throw new IOException("unexpected frame " + frame.type());
      }
    }
  }

  /** The same command in-process, on a directory of its own with the same files. */
  private Seen inProcess(Path workDir, String... args) {
    return inProcess(Terminal.none(), env, workDir, args);
  }

  private static Seen inProcess(
      Terminal terminal, Map<String, String> env, Path workDir, String... args) {
    CliRun run = CliRun.of(terminal, env::get, workDir, args);
    return new Seen(run.out(), run.err(), List.of(), run.code(), false);
  }

  @Test
  void aCommandPrintsAndExitsExactlyAsItWouldInAProcessOfItsOwn(@TempDir Path alone)
      throws IOException {
    Files.copy(dir.resolve("web-v1.yaml"), alone.resolve("web-v1.yaml"));
    String[][] commands = {
      {"release", "cast", "-f", "web-v1.yaml", "--yes"},
      {"release", "list", "-n", "demo"},
      {"release", "history", "web", "-n", "demo"},
      {"release", "get", "nope", "-n", "demo"},
      {"release", "cast", "-f", "missing.yaml", "--yes"},
      {"release", "--no-such-flag"},
    };
    for (String[] command : commands) {
      Seen viaDaemon = client(env, false, List.of(), command);
      Seen direct = inProcess(alone, command);
      assertThat(viaDaemon.exit()).as(String.join(" ", command)).isEqualTo(direct.exit());
      assertThat(withoutTimes(viaDaemon.out()))
          .as(String.join(" ", command))
          .isEqualTo(withoutTimes(direct.out().replace(alone.toString(), dir.toString())));
      // progress lines of writes within one rank come in the order the writes finish
      assertThat(viaDaemon.err().lines().sorted())
          .as(String.join(" ", command))
          .containsExactlyElementsOf(
              direct.err().replace(alone.toString(), dir.toString()).lines().sorted().toList());
    }
    assertThat(client(env, false, List.of(), "release", "list", "-n", "demo").out())
        .startsWith("NAME  REVISION  STATUS    VERSION  UPDATED\nweb   1         deployed");
    assertThat(client(env, false, List.of(), "release", "get", "nope", "-n", "demo"))
        .extracting(Seen::exit, Seen::out)
        .containsExactly(1, "");
    assertThat(daemon().served()).isEqualTo(8);
  }

  @Test
  void relativePathsAndTheStateFileAreTheClientsNotTheDaemons() throws IOException {
    Seen cast = client(env, false, List.of(), "release", "cast", "-f", "web-v1.yaml", "--yes");

    assertThat(cast.exit()).isZero();
    assertThat(dir.resolve(".capstan/state.json")).isRegularFile();
    assertThat(Path.of(".capstan/state.json").toAbsolutePath()).doesNotExist();
  }

  @Test
  void theClientsEnvironmentIsTheCommandsEnvironment() throws IOException {
    Path state = dir.resolve("elsewhere.json");
    Map<String, String> withState = new TreeMap<>(env);
    withState.put("CAPSTAN_STATE", state.toString());

    assertThat(
            client(withState, false, List.of(), "release", "cast", "-f", "web-v1.yaml", "--yes")
                .exit())
        .isZero();
    assertThat(state).isRegularFile();
    assertThat(dir.resolve(".capstan/state.json")).doesNotExist();

    Seen noSecret =
        client(Map.of(), false, List.of(), "release", "cast", "-f", "web-v2.yaml", "--yes");
    assertThat(noSecret.exit()).isEqualTo(2);
    assertThat(noSecret.err()).contains("WEB_DB_PASSWORD");
  }

  @Test
  void aQuestionGoesToTheClientsTerminalAndItsAnswerDecides() throws IOException {
    assertThat(
            client(env, false, List.of(), "release", "cast", "-f", "web-v1.yaml", "--yes").exit())
        .isZero();

    Seen declined = client(env, true, List.of("no"), "release", "uninstall", "web", "-n", "demo");
    assertThat(declined.questions()).hasSize(1);
    assertThat(declined.questions().get(0)).endsWith("Type 'yes' to continue: ");
    assertThat(declined.exit()).isEqualTo(5);
    assertThat(declined.err()).endsWith("capstan: not confirmed; nothing was changed.\n");

    Seen endOfInput = client(env, true, List.of(), "release", "uninstall", "web", "-n", "demo");
    assertThat(endOfInput.exit()).isEqualTo(5);

    Seen notATerminal = client(env, false, List.of(), "release", "uninstall", "web", "-n", "demo");
    assertThat(notATerminal.questions()).isEmpty();
    assertThat(notATerminal.exit()).isEqualTo(5);

    Seen confirmed = client(env, true, List.of("yes"), "release", "uninstall", "web", "-n", "demo");
    assertThat(confirmed.questions()).hasSize(1);
    assertThat(confirmed.exit()).isZero();
    assertThat(client(env, false, List.of(), "release", "list", "-n", "demo").out())
        .isEqualTo("NAME  REVISION  STATUS  VERSION  UPDATED\n");
  }

  @Test
  void aBusyDaemonSaysSoAtOnceAndAClientThatGoesAwayMidCommandStopsIt() throws Exception {
    restart(1, Daemon.DEFAULT_GRACE, new CachedKubeConnections()); // one place: busy at once
    assertThat(
            client(env, false, List.of(), "release", "cast", "-f", "web-v1.yaml", "--yes").exit())
        .isZero();
    FrameChannel first = uninstallAwaitingAnswer();

    assertThat(client(env, false, List.of(), "release", "list").busy()).isTrue();
    assertThat(abandoned.getCount()).isEqualTo(1);

    first.close(); // killed while its command waits for an answer
    // the command alone stops (not confirmed: its question is not answered); the daemon goes on
    daemon().awaitIdle();
    assertThat(daemon().served()).isEqualTo(2);
    assertThat(abandoned.getCount()).isEqualTo(1);
    assertThat(client(env, false, List.of(), "release", "list", "-n", "demo").out())
        .startsWith("NAME  REVISION  STATUS    VERSION  UPDATED\nweb   1         deployed");
  }

  @Test
  void twoCommandsRunAtOnceEachWithItsOwnOutputAndExitCode(@TempDir Path alone) throws Exception {
    Map<String, String> a = stateIn("a.json");
    Map<String, String> b = stateIn("b.json");
    String[] cast = {"release", "cast", "-f", "web-v1.yaml", "--yes"};
    assertThat(client(a, false, List.of(), cast).exit()).isZero();
    assertThat(client(b, false, List.of(), cast).exit()).isZero();
    String[] uninstall = {"release", "uninstall", "web", "-n", "demo"};

    FrameChannel first = uninstallAwaitingAnswer(a);
    FrameChannel second = uninstallAwaitingAnswer(b);
    // both are inside, each waiting for its own answer: they run at once
    assertThat(daemon().running()).isEqualTo(2);

    second.write('L', "no");
    Seen declined = seen(second, List.of());
    second.close();
    assertThat(daemon().running()).as("the first still waits for its answer").isEqualTo(1);
    first.write('L', "yes");
    Seen confirmed = seen(first, List.of());
    first.close();

    // each as the same command in a process of its own
    Files.copy(dir.resolve("web-v1.yaml"), alone.resolve("web-v1.yaml"));
    Map<String, String> aAlone = new TreeMap<>(env);
    aAlone.put("CAPSTAN_STATE", alone.resolve("a.json").toString());
    Map<String, String> bAlone = new TreeMap<>(env);
    bAlone.put("CAPSTAN_STATE", alone.resolve("b.json").toString());
    assertThat(inProcess(Terminal.none(), aAlone, alone, cast).exit()).isZero();
    assertThat(inProcess(Terminal.none(), bAlone, alone, cast).exit()).isZero();
    Seen yes = inProcess(answering("yes"), aAlone, alone, uninstall);
    Seen no = inProcess(answering("no"), bAlone, alone, uninstall);

    assertThat(confirmed.exit()).isZero();
    assertThat(withoutTimes(confirmed.out()))
        .isEqualTo(withoutTimes(yes.out().replace(alone.toString(), dir.toString())));
    // progress lines of deletes within one rank come in the order the deletes finish
    assertThat((errBeforeQuestion.get(first) + confirmed.err()).lines().sorted())
        .containsExactlyElementsOf(
            yes.err().replace(alone.toString(), dir.toString()).lines().sorted().toList());
    assertThat(declined.exit()).isEqualTo(5);
    assertThat(withoutTimes(declined.out()))
        .isEqualTo(withoutTimes(no.out().replace(alone.toString(), dir.toString())));
    assertThat(errBeforeQuestion.get(second) + declined.err())
        .isEqualTo(no.err().replace(alone.toString(), dir.toString()))
        .endsWith("capstan: not confirmed; nothing was changed.\n");
    assertThat(cluster("a.json").latestRecord("demo", "web").orElseThrow().release().status())
        .isEqualTo(ReleaseStatus.UNINSTALLED);
    assertThat(cluster("b.json").latestRecord("demo", "web").orElseThrow().release().status())
        .isEqualTo(ReleaseStatus.DEPLOYED);
    assertThat(daemon().served()).isEqualTo(4);
  }

  @Test
  void aClientThatGoesAwayStopsItsCommandAloneBeforeItsNextWrite() throws Exception {
    Map<String, String> a = stateIn("a.json");
    Map<String, String> b = stateIn("b.json");
    assertThat(client(b, false, List.of(), "release", "cast", "-f", "web-v1.yaml", "--yes").exit())
        .isZero();
    Map<String, String> held = new TreeMap<>(a);
    held.put("CAPSTAN_TEST_HOLD_AFTER_WRITES", "1"); // the cast holds after its first write
    FrameChannel caster =
        request(held, false, "release", "cast", "-f", "web-v1.yaml", "--yes", "--parallelism", "1");
    readErrUntil(caster, "capstan: test hold after 1 writes");
    FrameChannel other = uninstallAwaitingAnswer(b);
    assertThat(daemon().running()).isEqualTo(2);

    caster.close(); // its client is killed

    daemon().awaitRunning(1); // the cast has ended; the uninstall waits for its answer
    assertThat(nextLog()).isEqualTo(wentAway(2));
    assertThat(nextLog()).isEqualTo(logStopped(2, 1));
    InMemoryCluster stopped = cluster("a.json");
    assertThat(stopped.objects()).as("one object written, none after").hasSize(1);
    Release record = stopped.latestRecord("demo", "web").map(StoredRelease::release).orElseThrow();
    assertThat(record.status()).isEqualTo(ReleaseStatus.FAILED);
    assertThat(record.failure())
        .isEqualTo("the operation on demo/web was interrupted; stopped before the next write");
    assertThat(stopped.lease("demo", "web")).as("given up as the cast unwound").isEmpty();

    other.write('L', "yes");
    Seen uninstalled = seen(other, List.of());
    other.close();
    assertThat(uninstalled.exit()).isZero();
    assertThat(uninstalled.err()).contains("capstan: demo/web: ");
    assertThat(cluster("b.json").latestRecord("demo", "web").orElseThrow().release().status())
        .isEqualTo(ReleaseStatus.UNINSTALLED);
    assertThat(abandoned.getCount()).isEqualTo(1);

    // the stopped cast's release is cast again at once, by the next command
    Seen again = client(a, false, List.of(), "release", "cast", "-f", "web-v1.yaml", "--yes");
    assertThat(again.exit()).as(again.err()).isZero();
    assertThat(client(a, false, List.of(), "release", "history", "web", "-n", "demo").out())
        .containsPattern("1 +failed")
        .containsPattern("2 +deployed");
  }

  @Test
  void pastItsBoundAClientIsToldBusyAndAPlaceFreedIsTakenAgain() throws Exception {
    restart(2, Daemon.DEFAULT_GRACE, new CachedKubeConnections());
    Map<String, String> a = stateIn("a.json");
    Map<String, String> b = stateIn("b.json");
    String[] cast = {"release", "cast", "-f", "web-v1.yaml", "--yes"};
    assertThat(client(a, false, List.of(), cast).exit()).isZero();
    assertThat(client(b, false, List.of(), cast).exit()).isZero();
    FrameChannel first = uninstallAwaitingAnswer(a);
    FrameChannel second = uninstallAwaitingAnswer(b);

    Seen third = client(env, false, List.of(), "release", "list", "-n", "demo");

    assertThat(third.busy()).isTrue();
    assertThat(control('P').out()).contains(", 2 commands run, 2 running (at most 2 at once),");
    first.write('L', "no");
    assertThat(seen(first, List.of()).exit()).isEqualTo(5);
    first.close();
    Seen fourth = client(b, false, List.of(), "release", "list", "-n", "demo");
    assertThat(fourth.busy()).isFalse();
    assertThat(fourth.out()).startsWith("NAME  REVISION  STATUS");
    second.write('L', "no");
    assertThat(seen(second, List.of()).exit()).isEqualTo(5);
    second.close();
    assertThat(daemon().served()).isEqualTo(5);
  }

  @Test
  void aStoppedCommandThatDoesNotEndHaltsTheDaemonOnlyOnceNoOtherRuns() throws Exception {
    Path kubeconfig = Files.writeString(dir.resolve("kubeconfig"), "not read\n");
    CountDownLatch entered = new CountDownLatch(1);
    CountDownLatch unblock = new CountDownLatch(1);
    KubeConnections deaf =
        new KubeConnections() { // a command stuck where an interrupt does not reach
          @Override
          public KubeClients open(List<Path> files, @Nullable String context) {
            entered.countDown();
            boolean interrupted = false;
            while (true) {
              try {
                unblock.await();
                break;
              } catch (InterruptedException e) {
                interrupted = true;
              }
            }
            if (interrupted) {
              Thread.currentThread().interrupt();
            }
            throw new IllegalArgumentException("no cluster here");
          }

          @Override
          public void release(KubeClients clients) {}
        };
    restart(2, Duration.ofSeconds(30), deaf);
    FrameChannel stuck =
        request(env, false, "--kubeconfig", kubeconfig.toString(), "release", "list");
    assertThat(entered.await(10, TimeUnit.SECONDS)).isTrue();
    assertThat(
            client(env, false, List.of(), "release", "cast", "-f", "web-v1.yaml", "--yes").exit())
        .isZero();
    FrameChannel other = uninstallAwaitingAnswer();

    stuck.close();
    assertThat(nextLog()).isEqualTo(wentAway(1));
    clock.addAndGet(Duration.ofSeconds(30).toNanos()); // its grace passes

    assertThat(nextLog())
        .isEqualTo(
            "capstan daemon: command 1 has not stopped 30 s after its client went away; 1 other"
                + " command runs, so the daemon goes on and lets it be");
    assertThat(abandoned.getCount()).isEqualTo(1);
    other.write('L', "yes");
    assertThat(seen(other, List.of()).exit()).isZero();
    other.close();

    assertThat(abandoned.await(10, TimeUnit.SECONDS)).as("the last resort").isTrue();
    assertThat(nextLog())
        .isEqualTo(
            "capstan daemon: command 1 has not stopped 30 s after its client went away, and no"
                + " other command runs; halting, as a killed capstan process would stop (its lease"
                + " lapses for the next cast)");
    unblock.countDown(); // here nothing halted: let the command end
    daemon().awaitIdle();
    assertThat(nextLog()).isEqualTo(logStopped(1, 2));
  }

  /** The daemon's next log line (within 10 s). */
  private String nextLog() throws InterruptedException {
    String line = log.poll(10, TimeUnit.SECONDS);
    assertThat(line).as("a line in the daemon's log").isNotNull();
    return java.util.Objects.requireNonNull(line);
  }

  private static String logStopped(int command, int exit) {
    return "capstan daemon: command "
        + command
        + " stopped (exit code "
        + exit
        + ") after its client went away";
  }

  /** The daemon's line that the client of {@code command} went away. */
  private static String wentAway(int command) {
    return "capstan daemon: the client of command "
        + command
        + " went away; stopping that command at its next safe point (before its next write, or at"
        + " once from a wait)";
  }

  @Test
  void statusStopAndAnotherProtocolVersion() throws Exception {
    Seen status = control('P');
    assertThat(status.exit()).isZero();
    assertThat(status.out())
        .startsWith(
            "capstan daemon: running, pid "
                + ProcessHandle.current().pid()
                + ", up 0 s, 0 commands run")
        .endsWith("stops after 1800 s without one; socket " + socket + "\n");

    try (FrameChannel frames =
        new FrameChannel(SocketChannel.open(UnixDomainSocketAddress.of(socket)))) {
      frames.write('V', "2");
      Seen refused = seen(frames, List.of());
      assertThat(refused.exit()).isEqualTo(2);
      assertThat(refused.err())
          .isEqualTo(
              "capstan daemon: this client speaks another protocol; run the launcher of the same"
                  + " build\n");
    }

    Seen stopped = control('Q');
    assertThat(stopped.out()).isEqualTo("capstan daemon: stopped (0 commands run)\n");
    daemon().awaitStopped();
    assertThat(socket).doesNotExist();
  }

  @Test
  void aStopRequestLetsTheRunningCommandEnd() throws Exception {
    assertThat(
            client(env, false, List.of(), "release", "cast", "-f", "web-v1.yaml", "--yes").exit())
        .isZero();
    FrameChannel frames = uninstallAwaitingAnswer();

    assertThat(control('Q').out())
        .isEqualTo("capstan daemon: stopping once the command it runs ends\n");
    daemon().awaitStopped();
    assertThat(socket).doesNotExist();

    frames.write('L', "yes");
    Seen uninstall = seen(frames, List.of());
    frames.close();
    daemon().awaitIdle();
    assertThat(uninstall.exit()).isZero();
    assertThat(abandoned.getCount()).isEqualTo(1);
    assertThat(daemon().served()).isEqualTo(2);
  }

  @Test
  void theSocketIsThisUsersAloneAndASecondDaemonIsRefused() throws IOException {
    assertThat(Files.getPosixFilePermissions(socket))
        .isEqualTo(PosixFilePermissions.fromString("rw-------"));
    assertThat(Files.getPosixFilePermissions(socket.getParent()))
        .isEqualTo(PosixFilePermissions.fromString("rwx------"));

    assertThatThrownBy(
            () ->
                Daemon.bind(
                    socket,
                    Duration.ofMinutes(1),
                    new CachedKubeConnections(),
                    () -> {},
                    clock::get))
        .isInstanceOf(IOException.class)
        .hasMessage("a daemon already answers on " + socket);
  }

  @Test
  void aClientThatFindsTheSocketFileConnects() throws Exception {
    daemon().close();
    serving().join(10_000);
    // as the launcher's next command does after `daemon start` saw the file: connect at once
    for (int round = 0; round < 300; round++) {
      AtomicReference<@Nullable IOException> refused = new AtomicReference<>();
      Thread client =
          new Thread(
              () -> {
                while (!Files.exists(socket)) {
                  Thread.onSpinWait();
                }
                try (SocketChannel c = SocketChannel.open(UnixDomainSocketAddress.of(socket))) {
                  c.finishConnect();
                } catch (IOException e) {
                  refused.set(e);
                }
              });
      client.start();
      Daemon d =
          Daemon.bind(
              socket,
              Daemon.Settings.of(Duration.ofMinutes(30)),
              new CachedKubeConnections(),
              () -> {},
              log::add,
              clock::get);
      client.join(10_000);
      d.close();
      assertThat(refused.get()).as("round %d", round).isNull();
    }
  }

  @Test
  void aSocketLeftByAGoneDaemonIsReplaced() throws Exception {
    daemon().close();
    serving().join(10_000);
    Files.createFile(socket); // left behind by a daemon that was killed

    daemon = startDaemon(Duration.ofMinutes(30));

    assertThat(control('P').exit()).isZero();
  }

  @Test
  void itStopsByItselfAfterTheIdleTimeButNotWhileACommandRuns() throws Exception {
    daemon().close();
    serving().join(10_000);
    daemon = startDaemon(Duration.ofMillis(40));
    clock.addAndGet(Duration.ofMillis(39).toNanos());
    assertThat(control('P').exit()).isZero(); // a status request is no command: the clock runs on

    clock.addAndGet(Duration.ofMillis(1).toNanos());

    daemon().awaitStopped();
    assertThat(socket).doesNotExist();
  }

  /** The text with each instant (a revision's time) replaced: the two runs happen apart. */
  private static String withoutTimes(String text) {
    return text.replaceAll("\\d{4}-\\d\\d-\\d\\dT[0-9:.]+Z", "<time>");
  }

  private Daemon daemon() {
    assertThat(daemon).isNotNull();
    return java.util.Objects.requireNonNull(daemon);
  }

  private Thread serving() {
    return java.util.Objects.requireNonNull(serving);
  }
}
