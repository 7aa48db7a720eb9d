package dev.capstan.cli.daemon;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import org.jspecify.annotations.Nullable;

/**
 * Frames on a connection between the launcher's client and the daemon: a type byte, a 4-byte
 * big-endian length and that many bytes. Reads and writes may come from two threads at once (the
 * channel's own read and write locks; no stream adapter, whose shared lock would block a write
 * while a read waits).
 *
 * <p>Client to daemon: {@code V} protocol version ("1"), then {@code D} working directory, {@code
 * E} one environment entry ({@code NAME=value}, repeated), {@code T} "1" when a person can answer
 * at a terminal, {@code A} one argument (repeated) and {@code R} to run; or {@code P} (status) or
 * {@code Q} (stop the daemon) instead of {@code R}. While a command runs: {@code L} a line typed in
 * answer to a question, {@code Z} end of input.
 *
 * <p>Daemon to client: {@code 1} bytes for standard output, {@code 2} for standard error, {@code ?}
 * a question to show before reading one line, {@code X} the exit code (decimal), {@code B} busy
 * with another command (the client runs the command in a JVM of its own instead).
 */
public final class FrameChannel implements AutoCloseable {
  /** The largest frame read: a request's arguments and environment fit many times over. */
  static final int MAX_FRAME = 1 << 20;

  private final SocketChannel channel;
  private final Object writeLock = new Object();

  /** Frames over {@code channel}, a connected, blocking channel. */
  public FrameChannel(SocketChannel channel) {
    this.channel = channel;
  }

  /** One frame: its type and its bytes. */
  public static final class Frame {
    private final char type;
    private final byte[] payload;

    Frame(char type, byte[] payload) {
      this.type = type;
      this.payload = payload;
    }

    /** The frame's type. */
    public char type() {
      return type;
    }

    /** A copy of its bytes. */
    public byte[] payload() {
      return payload.clone();
    }

    /** The bytes as UTF-8 text. */
    public String text() {
      return new String(payload, StandardCharsets.UTF_8);
    }
  }

  /** Sends one frame with {@code text} in UTF-8. */
  public void write(char type, String text) throws IOException {
    byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
    write(type, bytes, 0, bytes.length);
  }

  /** Sends one frame with {@code len} bytes of {@code bytes} from {@code off}. */
  public void write(char type, byte[] bytes, int off, int len) throws IOException {
    synchronized (writeLock) {
      ByteBuffer header = ByteBuffer.allocate(5).put((byte) type).putInt(len).flip();
      writeFully(header);
      writeFully(ByteBuffer.wrap(bytes, off, len));
    }
  }

  /**
   * The next frame, or {@code null} when the peer closed the connection at a frame boundary.
   *
   * @throws IOException when the connection fails, ends inside a frame or sends a frame over 1 MiB
   */
  public @Nullable Frame read() throws IOException {
    ByteBuffer header = ByteBuffer.allocate(5);
    if (!readFully(header, true)) {
      return null;
    }
    header.flip();
    char type = (char) (header.get() & 0xff);
    int length = header.getInt();
    if (length < 0 || length > MAX_FRAME) {
      throw new IOException(
          "frame '" + type + "' of " + length + " bytes (at most " + MAX_FRAME + ")");
    }
    ByteBuffer payload = ByteBuffer.allocate(length);
    readFully(payload, false);
    return new Frame(type, payload.array());
  }

  /** An output stream whose every write is one frame of {@code type}. */
  public OutputStream stream(char type) {
    return new OutputStream() {
      @Override
      public void write(int b) throws IOException {
        FrameChannel.this.write(type, new byte[] {(byte) b}, 0, 1);
      }

      @Override
      public void write(byte[] b, int off, int len) throws IOException {
        if (len > 0) {
          FrameChannel.this.write(type, b, off, len);
        }
      }
    };
  }

  private void writeFully(ByteBuffer buffer) throws IOException {
    while (buffer.hasRemaining()) {
      channel.write(buffer);
    }
  }

  private boolean readFully(ByteBuffer buffer, boolean endAllowed) throws IOException {
    while (buffer.hasRemaining()) {
      if (channel.read(buffer) < 0) {
        if (endAllowed && buffer.position() == 0) {
          return false;
        }
        throw new IOException("connection ended inside a frame");
      }
    }
    return true;
  }

  @Override
  public void close() throws IOException {
    channel.close();
  }
}
