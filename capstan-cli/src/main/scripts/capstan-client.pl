#!/usr/bin/perl
# The launcher's client of the Capstan daemon (dev.capstan.cli.daemon): sends this process's
# arguments, environment, working directory and whether a person is at the terminal to the
# daemon's socket, then relays the command's output, its questions (answered from standard input)
# and its exit code.
#
# Usage: capstan-client.pl SOCKET run|status|stop [ARG...]
# When the daemon is busy (it runs as many commands at once as it may), or none takes the request
# on SOCKET (a socket file left behind is removed), `run` hands the command to $CAPSTAN_FALLBACK
# (the launcher, which execs it into this process with CAPSTAN_DAEMON=false: it runs in a JVM of
# its own, with the same process id); without one it exits 111 (busy) or 112 (no daemon), printing
# nothing. A daemon that
# stops after taking the request is reported, with exit code 1 (the command is not run again: it
# may have done part of its work).
# Killing this client (or Ctrl-C) while a command runs stops that command in the daemon, before
# its next write (the daemon's other commands go on); the daemon logs it beside its socket. Loads
# no module on Linux: it starts in a few milliseconds.
use strict;
use warnings;

my ($path, $verb, @args) = @ARGV;
defined $verb or die "usage: capstan-client.pl SOCKET run|status|stop [ARG...]\n";
$SIG{PIPE} = 'IGNORE';    # a closed stdout (| head) must not kill us, and the command with us

# Busy (111) or no daemon (112): the launcher runs the command in a JVM, in this process.
sub elsewhere {
  my ($code, $refused) = @_;
  unlink $path if $refused && -S $path;    # nobody listens: a socket file left behind
  if ($verb eq 'run' && defined $ENV{CAPSTAN_FALLBACK}) {
    $ENV{CAPSTAN_DAEMON} = 'false';
    exec($ENV{CAPSTAN_FALLBACK}, @args) or exit $code;
  }
  exit $code;
}

my $sock;
if ($^O eq 'linux') {
  socket($sock, 1, 1, 0) or elsewhere(112);                # AF_UNIX, SOCK_STREAM
  connect($sock, pack('S', 1) . $path) or elsewhere(112, 1); # struct sockaddr_un
} else {
  require Socket;
  socket($sock, Socket::AF_UNIX(), Socket::SOCK_STREAM(), 0) or elsewhere(112);
  connect($sock, Socket::pack_sockaddr_un($path)) or elsewhere(112, 1);
}

sub frame {
  my ($type, $payload) = @_;
  return pack('a N', $type, length $payload) . $payload;
}

sub send_bytes {
  my ($buf) = @_;
  while (length $buf) {
    my $n = syswrite($sock, $buf);
    defined $n or elsewhere(112);
    substr($buf, 0, $n) = '';
  }
}

sub read_exactly {
  my ($want) = @_;
  my $buf = '';
  while (length($buf) < $want) {
    my $n = sysread($sock, $buf, $want - length($buf), length $buf);
    return undef if !$n;
  }
  return $buf;
}

sub write_all {
  my ($fh, $bytes) = @_;
  while (length $bytes) {
    my $n = syswrite($fh, $bytes);
    return if !defined $n;    # the reader went away; the command goes on
    substr($bytes, 0, $n) = '';
  }
}

# The physical working directory, as the JVM's user.dir would be (Cwd costs 4 ms to load).
my $cwd = ($^O eq 'linux' ? readlink('/proc/self/cwd') : undef) // do { require Cwd; Cwd::getcwd() };
my $request = frame('V', '1');
if ($verb eq 'run') {
  $request .= frame('D', $cwd);
  $request .= frame('E', "$_=$ENV{$_}") for sort keys %ENV;
  $request .= frame('T', (-t STDIN && -t STDOUT) ? '1' : '0');
  $request .= frame('A', $_) for @args;
  $request .= frame('R', '');
} elsif ($verb eq 'status') {
  $request .= frame('P', '');
} elsif ($verb eq 'stop') {
  $request .= frame('Q', '');
} else {
  die "capstan-client.pl: unknown verb '$verb'\n";
}
send_bytes($request);

while (1) {
  my $header = read_exactly(5);
  if (!defined $header) {
    print STDERR "capstan: the daemon stopped before the command finished"
      . " (its log is beside its socket: ${path}.log)\n";
    exit 1;
  }
  my ($type, $length) = unpack('a N', $header);
  my $payload = $length ? read_exactly($length) : '';
  defined $payload or exit 1;
  if ($type eq 'B') {
    elsewhere(111);
  }
  if ($type eq '1') {
    write_all(\*STDOUT, $payload);
  } elsif ($type eq '2') {
    write_all(\*STDERR, $payload);
  } elsif ($type eq '?') {
    write_all(\*STDERR, $payload);
    my $line = <STDIN>;
    if (defined $line) {
      $line =~ s/\r?\n\z//;
      send_bytes(frame('L', $line));
    } else {
      send_bytes(frame('Z', ''));
    }
  } elsif ($type eq 'X') {
    exit($payload + 0);
  }
}
