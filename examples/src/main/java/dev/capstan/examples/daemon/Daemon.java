package dev.capstan.examples.daemon;

import static java.nio.charset.StandardCharsets.UTF_8;

import dev.capstan.examples.cli.Cli;
import dev.capstan.examples.cli.KubeConnections;
import dev.capstan.examples.cli.Terminal;
import dev.capstan.examples.daemon.FrameChannel.Frame;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;

/**
 * Runs {@code capstan} commands sent by clients over a Unix domain socket, each exactly as {@link
 * Cli#run} runs it in a process of its own: the client's arguments, environment, working directory
 * and terminal; its output and exit code go back to the client. One command at a time: a client
 * that finds the daemon busy is told so at once and runs its command in a JVM of its own.
 *
 * <p>A client that goes away while its command runs (killed, or Ctrl-C) calls {@code abandon},
 * which in the real daemon halts the JVM at once: the command stops where it is, exactly as a
 * killed {@code capstan} process would, and its release's lease lapses for the next cast to take
 * over. The daemon stops by itself after {@code idle} without a command.
 */
public final class Daemon implements AutoCloseable {
  private final Path socket;
  private final ServerSocketChannel server;
  private final Duration idle;
  private final KubeConnections connections;
  private final Runnable abandon;
  private final LongSupplier nanoTime;
  private final AtomicBoolean busy = new AtomicBoolean();
  private final AtomicBoolean closed = new AtomicBoolean();
  private final AtomicLong served = new AtomicLong();
  private final CountDownLatch stopped = new CountDownLatch(1);
  private final long startedNanos;
  private volatile long lastActivityNanos;

  private Daemon(
      Path socket,
      ServerSocketChannel server,
      Duration idle,
      KubeConnections connections,
      Runnable abandon,
      LongSupplier nanoTime) {
    this.socket = socket;
    this.server = server;
    this.idle = idle;
    this.connections = connections;
    this.abandon = abandon;
    this.nanoTime = nanoTime;
    this.startedNanos = nanoTime.getAsLong();
    this.lastActivityNanos = startedNanos;
  }

  /**
   * Listens on {@code socket}, readable and writable by this user only (its folder is created with
   * the same rights when missing). A socket file left by a daemon that is gone is replaced.
   *
   * @param idle how long to wait for a command before stopping
   * @param connections where commands get their Kubernetes clients (kept across commands)
   * @param abandon what to do when a client goes away while its command runs
   * @param nanoTime the clock for the idle timeout
   * @throws IOException when the socket cannot be bound, or another daemon answers on it
   */
  public static Daemon bind(
      Path socket,
      Duration idle,
      KubeConnections connections,
      Runnable abandon,
      LongSupplier nanoTime)
      throws IOException {
    Path dir = socket.toAbsolutePath().getParent();
    if (dir != null && !Files.isDirectory(dir)) {
      Files.createDirectories(
          dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
    }
    if (Files.exists(socket)) {
      if (answers(socket)) {
        throw new IOException("a daemon already answers on " + socket);
      }
      Files.delete(socket);
    }
    ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
    server.bind(UnixDomainSocketAddress.of(socket));
    Files.setPosixFilePermissions(socket, PosixFilePermissions.fromString("rw-------"));
    return new Daemon(socket, server, idle, connections, abandon, nanoTime);
  }

  private static boolean answers(Path socket) {
    try (SocketChannel probe = SocketChannel.open(UnixDomainSocketAddress.of(socket))) {
      return probe.isConnected();
    } catch (IOException e) {
      return false;
    }
  }

  /** Accepts clients until {@link #close()}, a {@code Q} request or the idle timeout. */
  public void serve() {
    Thread watchdog = new Thread(this::watchIdle, "capstan-daemon-idle");
    watchdog.setDaemon(true);
    watchdog.start();
    try {
      while (!closed.get()) {
        SocketChannel client = server.accept();
        Thread worker = new Thread(() -> handle(client), "capstan-daemon-client");
        worker.setDaemon(true);
        worker.start();
      }
    } catch (ClosedChannelException e) {
      // closed: stop serving
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } finally {
      close();
    }
  }

  /** Waits until the daemon has stopped serving. */
  public void awaitStopped() throws InterruptedException {
    stopped.await();
  }

  /**
   * Waits until no command runs: a daemon stopped while it runs one lets it end (a stop request is
   * not a kill); nothing new starts once it has stopped serving.
   */
  public void awaitIdle() throws InterruptedException {
    while (busy.get()) {
      Thread.sleep(20);
    }
  }

  /** How many commands the daemon has run. */
  public long served() {
    return served.get();
  }

  private void watchIdle() {
    long tick = Math.max(1, Math.min(1000, idle.toMillis() / 4));
    while (!closed.get()) {
      if (!busy.get() && nanoTime.getAsLong() - lastActivityNanos >= idle.toNanos()) {
        close();
        return;
      }
      try {
        Thread.sleep(tick);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }

  private void handle(SocketChannel channel) {
    try (channel;
        FrameChannel frames = new FrameChannel(channel)) {
      Request request = Request.read(frames);
      if (request.problem != null) {
        frames.write('2', "capstan daemon: " + request.problem + "\n");
        frames.write('X', "2");
      } else if (request.kind == 'P') {
        frames.write('1', status());
        frames.write('X', "0");
      } else if (request.kind == 'Q') {
        frames.write(
            '1',
            busy.get()
                ? "capstan daemon: stopping once the command it runs ends\n"
                : "capstan daemon: stopped (" + served.get() + " commands run)\n");
        frames.write('X', "0");
        close();
      } else {
        run(frames, request);
      }
    } catch (IOException | RuntimeException e) {
      System.err.println("capstan daemon: a client's connection failed: " + e);
    } catch (Error e) { // the daemon itself is broken (e.g. its jar went): clients go elsewhere
      System.err.println("capstan daemon: stopping after an error: " + e);
      close();
    }
  }

  private String status() {
    long up = Duration.ofNanos(nanoTime.getAsLong() - startedNanos).toSeconds();
    return "capstan daemon: running, pid "
        + ProcessHandle.current().pid()
        + ", up "
        + up
        + " s, "
        + served.get()
        + " commands run, stops after "
        + idle.toSeconds()
        + " s without one; socket "
        + socket
        + "\n";
  }

  private void run(FrameChannel frames, Request request) throws IOException {
    if (!busy.compareAndSet(false, true)) {
      frames.write('B', "");
      return;
    }
    int code;
    try {
      BlockingQueue<Optional<String>> typed = new LinkedBlockingQueue<>();
      AtomicBoolean finished = new AtomicBoolean();
      Thread reader = new Thread(() -> readAnswers(frames, typed, finished), "capstan-daemon-in");
      reader.setDaemon(true);
      reader.start();
      PrintStream out = new PrintStream(new BufferedOutputStream(frames.stream('1')), true, UTF_8);
      PrintStream err = new PrintStream(new BufferedOutputStream(frames.stream('2')), true, UTF_8);
      Terminal terminal =
          request.interactive ? new Remote(frames, typed, out, err) : Terminal.none();
      Map<String, String> env = request.env;
      Cli cli = new Cli(out, err, terminal, env::get, request.workDir, connections);
      code = cli.run(request.args.toArray(String[]::new));
      out.flush();
      err.flush();
      finished.set(true);
    } finally {
      served.incrementAndGet();
      lastActivityNanos = nanoTime.getAsLong();
      busy.set(false); // before the exit code: the client's next command must find the daemon free
    }
    frames.write('X', Integer.toString(code));
  }

  private void readAnswers(
      FrameChannel frames, BlockingQueue<Optional<String>> typed, AtomicBoolean finished) {
    while (true) {
      Frame frame;
      try {
        frame = frames.read();
      } catch (IOException e) {
        frame = null;
      }
      if (frame == null) {
        if (!finished.get()) {
          abandon.run();
        }
        typed.add(Optional.empty());
        return;
      }
      if (frame.type() == 'L') {
        typed.add(Optional.of(frame.text()));
      } else if (frame.type() == 'Z') {
        typed.add(Optional.empty());
      }
    }
  }

  /**
   * Stops serving: the socket file goes; a command that runs goes on ({@link #awaitIdle}). The kept
   * Kubernetes connections are the caller's to close, once it is idle.
   */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    try {
      server.close();
      Files.deleteIfExists(socket);
    } catch (IOException e) {
      System.err.println("capstan daemon: closing " + socket + ": " + e);
    } finally {
      stopped.countDown();
    }
  }

  /** The client's terminal: a question goes to the client, which sends back the line typed. */
  private static final class Remote implements Terminal {
    private final FrameChannel frames;
    private final BlockingQueue<Optional<String>> typed;
    private final PrintStream out;
    private final PrintStream err;

    Remote(
        FrameChannel frames,
        BlockingQueue<Optional<String>> typed,
        PrintStream out,
        PrintStream err) {
      this.frames = frames;
      this.typed = typed;
      this.out = out;
      this.err = err;
    }

    @Override
    public boolean interactive() {
      return true;
    }

    @Override
    public @Nullable String ask(String question) {
      out.flush();
      err.flush();
      try {
        frames.write('?', question);
        return typed.take().orElse(null);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return null;
      }
    }
  }

  /** What a client asked for. */
  private static final class Request {
    char kind = 'R';
    @Nullable String problem;
    Path workDir = Path.of("/");
    boolean interactive;
    final Map<String, String> env = new HashMap<>();
    final List<String> args = new ArrayList<>();

    static Request read(FrameChannel frames) throws IOException {
      Request request = new Request();
      Frame version = frames.read();
      if (version == null || version.type() != 'V' || !version.text().equals("1")) {
        request.problem = "this client speaks another protocol; run the launcher of the same build";
        return request;
      }
      boolean hasDir = false;
      while (true) {
        Frame frame = frames.read();
        if (frame == null) {
          throw new IOException("the client went away before its request was complete");
        }
        switch (frame.type()) {
          case 'D' -> {
            request.workDir = Path.of(frame.text());
            hasDir = true;
          }
          case 'E' -> {
            String entry = frame.text();
            int eq = entry.indexOf('=');
            if (eq > 0) {
              request.env.put(entry.substring(0, eq), entry.substring(eq + 1));
            }
          }
          case 'T' -> request.interactive = frame.text().equals("1");
          case 'A' -> request.args.add(frame.text());
          case 'R', 'P', 'Q' -> {
            request.kind = frame.type();
            if (request.kind == 'R' && (!hasDir || !request.workDir.isAbsolute())) {
              request.problem = "the request names no absolute working directory";
            }
            return request;
          }
          default -> {
            request.problem = "unknown request frame '" + frame.type() + "'";
            return request;
          }
        }
      }
    }
  }
}
