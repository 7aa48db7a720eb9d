package dev.capstan.examples.daemon;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.capstan.examples.cli.Cli;
import dev.capstan.examples.cli.CliRun;
import dev.capstan.examples.cli.Terminal;
import dev.capstan.examples.daemon.FrameChannel.Frame;
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
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The daemon runs each command as {@link Cli#run} would in a process of its own: the client's
 * arguments, environment, directory and terminal, its output and exit code; one at a time; and a
 * client that goes away mid-command stops it.
 */
class DaemonTest {
  @TempDir Path dir;

  private final AtomicLong clock = new AtomicLong();
  private final CountDownLatch abandoned = new CountDownLatch(1);
  private final Map<String, String> env = Map.of("WEB_DB_PASSWORD", "pw-from-env");
  private @Nullable Daemon daemon;
  private Path socket = Path.of("unset");
  private @Nullable Thread serving;

  @BeforeEach
  void start() throws IOException {
    Path examples = Path.of("releases");
    Files.copy(examples.resolve("web-v1.yaml"), dir.resolve("web-v1.yaml"));
    Files.copy(examples.resolve("web-v2.yaml"), dir.resolve("web-v2.yaml"));
    socket = dir.resolve("run/d.sock");
    daemon = startDaemon(Duration.ofMinutes(30));
  }

  private Daemon startDaemon(Duration idle) throws IOException {
    Daemon d =
        Daemon.bind(socket, idle, new CachedKubeConnections(), abandoned::countDown, clock::get);
    serving = new Thread(d::serve, "test-daemon");
    serving.start();
    return d;
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
    FrameChannel frames = request(Map.of(), true, "release", "uninstall", "web", "-n", "demo");
    Frame question;
    do {
      question = frames.read();
    } while (question != null && question.type() != '?');
    assertThat(question).isNotNull();
    return frames;
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
    CliRun run = CliRun.of(Terminal.none(), env::get, workDir, args);
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
    assertThat(
            client(env, false, List.of(), "release", "cast", "-f", "web-v1.yaml", "--yes").exit())
        .isZero();
    FrameChannel first = uninstallAwaitingAnswer();

    assertThat(client(env, false, List.of(), "release", "list").busy()).isTrue();
    assertThat(abandoned.getCount()).isEqualTo(1);

    first.close(); // killed while its command waits for an answer
    assertThat(abandoned.await(10, TimeUnit.SECONDS)).isTrue();
    // here nothing halts the JVM: the command goes on without an answer and ends (not confirmed)
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (daemon().served() < 2 && System.nanoTime() < deadline) {
      Thread.sleep(10);
    }
    assertThat(daemon().served()).isEqualTo(2);
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
