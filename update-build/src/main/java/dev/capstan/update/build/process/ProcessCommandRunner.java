package dev.capstan.update.build.process;

import dev.capstan.update.ImageBuildException;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * Runs programs as operating-system processes, with an argument list, never a shell. The output is
 * drained on a helper thread so that waiting stays interruptible: an interrupt destroys the process
 * at once.
 */
final class ProcessCommandRunner implements CommandRunner {
  /** How much output is kept (the tail). */
  static final int MAX_OUTPUT = 64 * 1024;

  @Override
  public CommandResult run(List<String> argv) {
    Process process;
    try {
      process = new ProcessBuilder(argv).redirectErrorStream(true).start();
    } catch (IOException e) {
      throw new ImageBuildException("cannot run " + argv.get(0) + ": " + e.getMessage());
    }
    Tail tail = new Tail(process.getInputStream());
    Thread drain = new Thread(tail, "capstan-output-" + argv.get(0));
    drain.setDaemon(true);
    drain.start();
    try {
      int exit = process.waitFor();
      drain.join();
      return new CommandResult(exit, tail.text());
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
      throw new ImageBuildException("interrupted while running " + argv.get(0));
    }
  }

  /** Keeps the last {@link #MAX_OUTPUT} bytes of a stream. */
  private static final class Tail implements Runnable {
    private final InputStream in;
    private final ByteArrayOutputStream kept = new ByteArrayOutputStream();

    Tail(InputStream in) {
      this.in = in;
    }

    @Override
    public void run() {
      byte[] buf = new byte[8192];
      try (in) {
        int n;
        while ((n = in.read(buf)) >= 0) {
          synchronized (kept) {
            kept.write(buf, 0, n);
            if (kept.size() > 2 * MAX_OUTPUT) {
              byte[] all = kept.toByteArray();
              kept.reset();
              kept.write(all, all.length - MAX_OUTPUT, MAX_OUTPUT);
            }
          }
        }
      } catch (IOException closed) {
        // the process was destroyed; keep what was read
      }
    }

    String text() {
      synchronized (kept) {
        byte[] all = kept.toByteArray();
        int from = Math.max(0, all.length - MAX_OUTPUT);
        return new String(all, from, all.length - from, StandardCharsets.UTF_8);
      }
    }
  }
}
