using System.Net;
using System.Net.Security;
using System.Net.Sockets;
using System.Security.Cryptography.X509Certificates;
using System.Text;

namespace GrpcBestPractices.Tests.Fakes;

/// <summary>
/// A minimal HTTP/1.1 server on a real loopback socket, optionally behind TLS with its own certificate: it answers every
/// request with <see cref="Body"/> and counts the bytes it read and wrote on its sockets, so a test can hold the client's
/// own count against what really crossed the wire.
/// </summary>
public sealed class LoopbackHttpServer : IAsyncDisposable
{
    private readonly TcpListener _listener = new(IPAddress.Loopback, 0);
    private readonly X509Certificate2? _certificate;
    private readonly CancellationTokenSource _stop = new();
    private readonly Task _accepting;
    private long _received;
    private long _sent;
    private int _connections;

    public LoopbackHttpServer(string body = "{}", X509Certificate2? certificate = null)
    {
        Body = body;
        _certificate = certificate;
        _listener.Start();
        _accepting = AcceptAsync();
    }

    public string Body { get; }

    public Uri Address => new($"{(_certificate is null ? "http" : "https")}://127.0.0.1:{((IPEndPoint)_listener.LocalEndpoint).Port}");

    public long Received => Interlocked.Read(ref _received);

    public long Sent => Interlocked.Read(ref _sent);

    public int Connections => Volatile.Read(ref _connections);

    public async ValueTask DisposeAsync()
    {
        await _stop.CancelAsync();
        _listener.Stop();
        try
        {
            await _accepting;
        }
        catch (Exception stopped) when (stopped is OperationCanceledException or SocketException or ObjectDisposedException)
        {
        }

        _stop.Dispose();
    }

    private async Task AcceptAsync()
    {
        while (!_stop.IsCancellationRequested)
        {
            var socket = await _listener.AcceptSocketAsync(_stop.Token);
            Interlocked.Increment(ref _connections);
            _ = ServeAsync(socket);
        }
    }

    private async Task ServeAsync(Socket socket)
    {
        try
        {
            await using var network = new NetworkStream(socket, ownsSocket: true);
            Stream stream = network;
            if (_certificate is not null)
            {
                var tls = new SslStream(new TallyStream(network, this));
                await tls.AuthenticateAsServerAsync(new SslServerAuthenticationOptions
                {
                    ServerCertificate = _certificate,
                    ApplicationProtocols = [SslApplicationProtocol.Http11],
                }, _stop.Token);
                stream = tls;
            }
            else
            {
                stream = new TallyStream(network, this);
            }

            var response = Encoding.ASCII.GetBytes($"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {Encoding.UTF8.GetByteCount(Body)}\r\n\r\n{Body}");
            while (await ReadRequestAsync(stream))
            {
                await stream.WriteAsync(response, _stop.Token);
                await stream.FlushAsync(_stop.Token);
            }
        }
        catch (Exception ended) when (ended is IOException or OperationCanceledException or System.Security.Authentication.AuthenticationException or ObjectDisposedException)
        {
        }
    }

    /// <summary>Reads one request: headers up to the blank line, then Content-Length bytes of body. False when the client closed.</summary>
    private async Task<bool> ReadRequestAsync(Stream stream)
    {
        var headers = new StringBuilder();
        var one = new byte[1];
        while (!headers.ToString().EndsWith("\r\n\r\n", StringComparison.Ordinal))
        {
            if (await stream.ReadAsync(one, _stop.Token) == 0)
            {
                return false;
            }

            headers.Append((char)one[0]);
        }

        var length = headers.ToString().Split("\r\n").FirstOrDefault(line => line.StartsWith("Content-Length:", StringComparison.OrdinalIgnoreCase)) is { } line
            ? long.Parse(line["Content-Length:".Length..].Trim(), System.Globalization.CultureInfo.InvariantCulture)
            : 0;
        var body = new byte[8192];
        for (long read = 0; read < length;)
        {
            var count = await stream.ReadAsync(body.AsMemory(0, (int)Math.Min(body.Length, length - read)), _stop.Token);
            if (count == 0)
            {
                return false;
            }

            read += count;
        }

        return true;
    }

    /// <summary>Counts what the server's socket carries, below TLS when there is TLS.</summary>
    private sealed class TallyStream(Stream inner, LoopbackHttpServer server) : Stream
    {
        public override bool CanRead => true;

        public override bool CanWrite => true;

        public override bool CanSeek => false;

        public override long Length => throw new NotSupportedException();

        public override long Position { get => throw new NotSupportedException(); set => throw new NotSupportedException(); }

        public override async ValueTask<int> ReadAsync(Memory<byte> buffer, CancellationToken cancellationToken = default)
        {
            var count = await inner.ReadAsync(buffer, cancellationToken);
            Interlocked.Add(ref server._received, count);
            return count;
        }

        public override Task<int> ReadAsync(byte[] buffer, int offset, int count, CancellationToken cancellationToken) =>
            ReadAsync(buffer.AsMemory(offset, count), cancellationToken).AsTask();

        // Counted before the write, so a client that has read the answer never sees a count without it.
        public override ValueTask WriteAsync(ReadOnlyMemory<byte> buffer, CancellationToken cancellationToken = default)
        {
            Interlocked.Add(ref server._sent, buffer.Length);
            return inner.WriteAsync(buffer, cancellationToken);
        }

        public override Task WriteAsync(byte[] buffer, int offset, int count, CancellationToken cancellationToken) =>
            WriteAsync(buffer.AsMemory(offset, count), cancellationToken).AsTask();

        public override int Read(byte[] buffer, int offset, int count) => ReadAsync(buffer, offset, count).GetAwaiter().GetResult();

        public override void Write(byte[] buffer, int offset, int count) => WriteAsync(buffer, offset, count).GetAwaiter().GetResult();

        public override void Flush() => inner.Flush();

        public override Task FlushAsync(CancellationToken cancellationToken) => inner.FlushAsync(cancellationToken);

        public override long Seek(long offset, SeekOrigin origin) => throw new NotSupportedException();

        public override void SetLength(long value) => throw new NotSupportedException();
    }
}
