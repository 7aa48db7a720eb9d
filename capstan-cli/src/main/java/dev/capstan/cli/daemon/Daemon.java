package dev.capstan.cli.daemon;

import static java.nio.charset.StandardCharsets.UTF_8;

import dev.capstan.cli.Cli;
import dev.capstan.cli.KubeConnections;
import dev.capstan.cli.Terminal;
import dev.capstan.cli.daemon.FrameChannel.Frame;
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
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;

/**
 * Runs {@code capstan} commands sent by clients over a Unix domain socket, each exactly as {@link
 * Cli#run} runs it in a process of its own: the client's arguments, environment, working directory
 * and terminal; its output and exit code go back to the client. Up to {@link Settings#jobs()}
 * commands run at once, each on a thread of its own with its own {@link Cli}; they share the kept
 * Kubernetes connections ({@link KubeConnections}) and nothing else. A client that finds every
 * place taken is told so at once ({@code B}) and runs its command in a JVM of its own.
 *
 * <p>A client that goes away while its command runs (killed, or Ctrl-C) stops that command alone:
 * its thread is interrupted, and the command stops at its next safe point — before its next write
 * (a release operation's check of its lease fails, {@link dev.capstan.release.ReleaseController}),
 * or at once from a wait (health, a rollout, the lease, a retry, a question). It unwinds as after a
 * failure: a cast's revision is recorded failed (an uninstall keeps its progress), the lease is
 * given up; its output goes nowhere. The other commands go on and report their own output and exit
 * codes. As a last resort, a stopped command that has not ended {@link Settings#grace()} after its
 * client went away (blocked where an interrupt does not reach, such as a read of the network) halts
 * the daemon through {@code abandon} when no other command runs, as a killed {@code capstan}
 * process would stop, so its lease lapses for the next cast to take over; while others run, the
 * daemon logs it and lets it be (it is looked at again whenever a command ends). The daemon stops
 * by itself after {@link Settings#idle()} without a command.
 */
public final class Daemon implements AutoCloseable {
  /**
   * How many commands run at once by default; clients beyond them run in JVMs of their own. A
   * command mostly waits for the API server, so a few at once cost the daemon little CPU; each
   * writes up to 16 objects (64 deletes) at once, so 8 keep what one daemon sends an API server and
   * holds in its heap within what a handful of separate JVMs would.
   */
  public static final int DEFAULT_JOBS = 8;

  /** How long a stopped command may take to end before the daemon's last resort, by default. */
  public static final Duration DEFAULT_GRACE = Duration.ofSeconds(30);

  /**
   * How a daemon runs commands.
   *
   * @param idle how long to wait for a command before stopping
   * @param jobs how many commands run at once, at least 1
   * @param grace how long a command stopped because its client went away may take to end
   */
  public record Settings(Duration idle, int jobs, Duration grace) {
    /** Checks the values. */
    public Settings {
      if (idle.isNegative() || idle.isZero()) {
        throw new IllegalArgumentException("idle must be positive: " + idle);
      }
      if (jobs < 1) {
        throw new IllegalArgumentException("jobs must be at least 1: " + jobs);
      }
      if (grace.isNegative()) {
        throw new IllegalArgumentException("grace must not be negative: " + grace);
      }
    }

    /** {@code idle}, with {@link #DEFAULT_JOBS} and {@link #DEFAULT_GRACE}. */
    public static Settings of(Duration idle) {
      return new Settings(idle, DEFAULT_JOBS, DEFAULT_GRACE);
    }
  }

  private final Path socket;
  private final ServerSocketChannel server;
  private final Settings settings;
  private final KubeConnections connections;
  private final Runnable abandon;
  private final Consumer<String> log;
  private final LongSupplier nanoTime;
  private final AtomicBoolean closed = new AtomicBoolean();
  private final AtomicBoolean abandoned = new AtomicBoolean();
  private final CountDownLatch stopped = new CountDownLatch(1);
  private final long startedNanos;

  /** Guards {@link #running}, {@link #served} and {@link #numbered}; waited on for changes. */
  private final Object lock = new Object();

  private final Set<Command> running = new LinkedHashSet<>();
  private long served;
  private long numbered;
  private volatile long lastActivityNanos;

  private Daemon(
      Path socket,
      ServerSocketChannel server,
      Settings settings,
      KubeConnections connections,
      Runnable abandon,
      Consumer<String> log,
      LongSupplier nanoTime) {
    this.socket = socket;
    this.server = server;
    this.settings = settings;
    this.connections = connections;
    this.abandon = abandon;
    this.log = log;
    this.nanoTime = nanoTime;
    this.startedNanos = nanoTime.getAsLong();
    this.lastActivityNanos = startedNanos;
  }

  /**
   * {@link #bind(Path, Settings, KubeConnections, Runnable, Consumer, LongSupplier)} with {@link
   * Settings#of(Duration) the default settings} for {@code idle}, logging to standard error.
   */
  public static Daemon bind(
      Path socket,
      Duration idle,
      KubeConnections connections,
      Runnable abandon,
      LongSupplier nanoTime)
      throws IOException {
    return bind(socket, Settings.of(idle), connections, abandon, System.err::println, nanoTime);
  }

  /**
   * Listens on {@code socket}, readable and writable by this user only (its folder is created with
   * the same rights when missing). A socket file left by a daemon that is gone is replaced.
   *
   * @param settings the idle timeout, how many commands run at once, the grace of a stopped one
   * @param connections where commands get their Kubernetes clients (kept across commands)
   * @param abandon the last resort, run at most once: a command stopped because its client went
   *     away has not ended within the grace, and no other command runs (the real daemon halts)
   * @param log where the daemon's own lines go (the real daemon's log file)
   * @param nanoTime the clock for the idle timeout and the grace
   * @throws IOException when the socket cannot be bound, or another daemon answers on it
   */
  public static Daemon bind(
      Path socket,
      Settings settings,
      KubeConnections connections,
      Runnable abandon,
      Consumer<String> log,
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
    // Bound and listening under a name of its own, then renamed: a client that finds the socket
    // file can connect. (Bound in place, the file exists a moment before the socket listens; a
    // client refused then takes it for one left behind by a daemon gone, and removes it.)
    Path binding =
        socket.resolveSibling(
            socket.getFileName() + "." + ProcessHandle.current().pid() + ".binding");
    Files.deleteIfExists(binding);
    ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
    try {
      server.bind(UnixDomainSocketAddress.of(binding));
      Files.setPosixFilePermissions(binding, PosixFilePermissions.fromString("rw-------"));
      Files.move(binding, socket, StandardCopyOption.ATOMIC_MOVE);
    } catch (IOException | RuntimeException e) {
      server.close();
      Files.deleteIfExists(binding);
      throw e;
    }
    return new Daemon(socket, server, settings, connections, abandon, log, nanoTime);
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
    Thread watchdog = new Thread(this::watch, "capstan-daemon-watch");
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
   * Waits until no command runs: a daemon stopped while it runs some lets them end (a stop request
   * is not a kill); nothing new starts once it has stopped serving.
   */
  public void awaitIdle() throws InterruptedException {
    awaitRunning(0);
  }

  /** Waits until exactly {@code count} commands run. */
  public void awaitRunning(int count) throws InterruptedException {
    synchronized (lock) {
      while (running.size() != count) {
        lock.wait();
      }
    }
  }

  /** How many commands run now. */
  public int running() {
    synchronized (lock) {
      return running.size();
    }
  }

  /** How many commands the daemon has run (each ended, stopped ones included). */
  public long served() {
    synchronized (lock) {
      return served;
    }
  }

  /**
   * The watchdog: stops the daemon after the idle time, and looks after stopped commands that
   * overstay their grace, until it is closed and no command runs.
   */
  private void watch() {
    long wait = Math.min(settings.idle().toMillis(), settings.grace().toMillis());
    long tick = Math.max(10, Math.min(1000, wait / 4));
    while (!closed.get() || running() > 0) {
      if (!closed.get()
          && running() == 0
          && nanoTime.getAsLong() - lastActivityNanos >= settings.idle().toNanos()) {
        close();
      }
      lookAfterStopped();
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
        int now = running();
        frames.write(
            '1',
            now == 0
                ? "capstan daemon: stopped (" + served() + " commands run)\n"
                : now == 1
                    ? "capstan daemon: stopping once the command it runs ends\n"
                    : "capstan daemon: stopping once the " + now + " commands it runs end\n");
        frames.write('X', "0");
        close();
      } else {
        run(frames, request);
      }
    } catch (IOException | RuntimeException e) {
      log.accept("capstan daemon: a client's connection failed: " + e);
    } catch (Error e) { // the daemon itself is broken (e.g. its jar went): clients go elsewhere
      log.accept("capstan daemon: stopping after an error: " + e);
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
        + served()
        + " commands run, "
        + running()
        + " running (at most "
        + settings.jobs()
        + " at once), stops after "
        + settings.idle().toSeconds()
        + " s without one; socket "
        + socket
        + "\n";
  }

  /** A command that runs: its thread, and whether (and since when) it is being stopped. */
  private static final class Command {
    final long number;
    final Thread thread;
    volatile boolean cancelled;
    volatile long cancelledNanos;
    volatile boolean overdueLogged;

    Command(long number, Thread thread) {
      this.number = number;
      this.thread = thread;
    }
  }

  /** Takes a place for a command on this thread; null when every place is taken. */
  private @Nullable Command admit() {
    synchronized (lock) {
      if (running.size() >= settings.jobs()) {
        return null;
      }
      Command command = new Command(++numbered, Thread.currentThread());
      running.add(command);
      lock.notifyAll();
      return command;
    }
  }

  private void finish(Command command) {
    synchronized (lock) {
      running.remove(command);
      served++;
      lastActivityNanos = nanoTime.getAsLong();
      lock.notifyAll();
    }
  }

  private void run(FrameChannel frames, Request request) throws IOException {
    Command command = admit();
    if (command == null) {
      frames.write('B', "");
      return;
    }
    int code;
    try {
      BlockingQueue<Optional<String>> typed = new LinkedBlockingQueue<>();
      AtomicBoolean finished = new AtomicBoolean();
      Thread reader =
          new Thread(
              () -> readAnswers(frames, typed, finished, command),
              "capstan-daemon-in-" + command.number);
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
      // an interrupt that stopped the command ends with it; this thread only says how it went
      Thread.interrupted();
      finish(command); // before the exit code: the client's next command must find a place
    }
    lookAfterStopped(); // a stopped command that overstays may be the only one left
    if (command.cancelled) {
      log.accept(
          "capstan daemon: command "
              + command.number
              + " stopped (exit code "
              + code
              + ") after its client went away");
      return;
    }
    frames.write('X', Integer.toString(code));
  }

  private void readAnswers(
      FrameChannel frames,
      BlockingQueue<Optional<String>> typed,
      AtomicBoolean finished,
      Command command) {
    while (true) {
      Frame frame;
      try {
        frame = frames.read();
      } catch (IOException e) {
        frame = null;
      }
      if (frame == null) {
        if (!finished.get()) {
          cancel(command);
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

  /** The client of {@code command} went away while it ran: stop that command alone. */
  private void cancel(Command command) {
    synchronized (lock) {
      if (!running.contains(command) || command.cancelled) {
        return;
      }
      command.cancelledNanos = nanoTime.getAsLong();
      command.cancelled = true;
    }
    log.accept(
        "capstan daemon: the client of command "
            + command.number
            + " went away; stopping that command at its next safe point (before its next write,"
            + " or at once from a wait)");
    command.thread.interrupt();
  }

  /**
   * The last resort for stopped commands past their grace: when every command that runs is one, the
   * daemon is abandoned (halted); otherwise each is logged once and let be.
   */
  private void lookAfterStopped() {
    List<Command> overdue = new ArrayList<>();
    int others;
    synchronized (lock) {
      long now = nanoTime.getAsLong();
      for (Command c : running) {
        if (c.cancelled && now - c.cancelledNanos >= settings.grace().toNanos()) {
          overdue.add(c);
        }
      }
      others = running.size() - overdue.size();
    }
    if (overdue.isEmpty()) {
      return;
    }
    String which = overdue.size() == 1 ? "command " + overdue.get(0).number : numbers(overdue);
    String has = overdue.size() == 1 ? "has" : "have";
    if (others == 0) {
      if (abandoned.compareAndSet(false, true)) {
        log.accept(
            "capstan daemon: "
                + which
                + " "
                + has
                + " not stopped "
                + settings.grace().toSeconds()
                + " s after its client went away, and no other command runs; halting, as a"
                + " killed capstan process would stop (its lease lapses for the next cast)");
        abandon.run();
      }
      return;
    }
    for (Command c : overdue) {
      if (!c.overdueLogged) {
        c.overdueLogged = true;
        log.accept(
            "capstan daemon: command "
                + c.number
                + " has not stopped "
                + settings.grace().toSeconds()
                + " s after its client went away; "
                + others
                + (others == 1 ? " other command runs" : " other commands run")
                + ", so the daemon goes on and lets it be");
      }
    }
  }

  private static String numbers(List<Command> commands) {
    List<String> numbers = new ArrayList<>();
    commands.forEach(c -> numbers.add(Long.toString(c.number)));
    return "commands " + String.join(", ", numbers);
  }

  /**
   * Stops serving: the socket file goes; commands that run go on ({@link #awaitIdle}). The kept
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
      log.accept("capstan daemon: closing " + socket + ": " + e);
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
