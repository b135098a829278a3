using System.Net.Sockets;

namespace LoadEngine.Protocols;

/// <summary>Bytes written to and read from the sockets, and the connections opened, at one moment.</summary>
public readonly record struct WireTotals(long Sent, long Received, long Opened)
{
    public static WireTotals operator -(WireTotals after, WireTotals before) =>
        new(after.Sent - before.Sent, after.Received - before.Received, after.Opened - before.Opened);
}

/// <summary>
/// What one contender's connections carried, measured on the client's own sockets: its handlers open every connection
/// through <see cref="ConnectAsync"/>, which hands SocketsHttpHandler a stream that counts each byte read and written.
/// Under TLS, SocketsHttpHandler layers its SslStream on top, so the count is the encrypted bytes: really the wire.
/// </summary>
public sealed class WireCounter
{
    private long _sent;
    private long _received;
    private long _opened;
    private int _phase;
    private int _usedInPhase;

    public WireTotals Totals => new(Interlocked.Read(ref _sent), Interlocked.Read(ref _received), Interlocked.Read(ref _opened));

    /// <summary>Connections that carried at least one byte since <see cref="StartPhase"/>.</summary>
    public int ConnectionsUsedInPhase => Volatile.Read(ref _usedInPhase);

    internal int Phase => Volatile.Read(ref _phase);

    /// <summary>Starts counting connections used afresh (the measured phase), and says where the byte counts stand.</summary>
    public WireTotals StartPhase()
    {
        Interlocked.Increment(ref _phase);
        Volatile.Write(ref _usedInPhase, 0);
        return Totals;
    }

    /// <summary>SocketsHttpHandler.ConnectCallback: a TCP connection (Nagle off, as the handler's own), behind a counting stream.</summary>
    public async ValueTask<Stream> ConnectAsync(SocketsHttpConnectionContext context, CancellationToken cancellation)
    {
        var socket = new Socket(SocketType.Stream, ProtocolType.Tcp) { NoDelay = true };
        try
        {
            await socket.ConnectAsync(context.DnsEndPoint, cancellation);
            Interlocked.Increment(ref _opened);
            return new CountingStream(new NetworkStream(socket, ownsSocket: true), this);
        }
        catch
        {
            socket.Dispose();
            throw;
        }
    }

    internal void Sent(int bytes) => Interlocked.Add(ref _sent, bytes);

    internal void Received(int bytes) => Interlocked.Add(ref _received, bytes);

    internal void Used() => Interlocked.Increment(ref _usedInPhase);
}

/// <summary>A connection's stream that adds every byte read and written to its <see cref="WireCounter"/>.</summary>
public sealed class CountingStream(Stream inner, WireCounter counter) : Stream
{
    private int _phase = -1;

    public override bool CanRead => inner.CanRead;

    public override bool CanWrite => inner.CanWrite;

    public override bool CanSeek => false;

    public override long Length => throw new NotSupportedException();

    public override long Position
    {
        get => throw new NotSupportedException();
        set => throw new NotSupportedException();
    }

    public override int Read(byte[] buffer, int offset, int count) => Received(inner.Read(buffer, offset, count));

    public override int Read(Span<byte> buffer) => Received(inner.Read(buffer));

    public override async ValueTask<int> ReadAsync(Memory<byte> buffer, CancellationToken cancellationToken = default) =>
        Received(await inner.ReadAsync(buffer, cancellationToken));

    public override Task<int> ReadAsync(byte[] buffer, int offset, int count, CancellationToken cancellationToken) =>
        ReadAsync(buffer.AsMemory(offset, count), cancellationToken).AsTask();

    public override void Write(byte[] buffer, int offset, int count)
    {
        inner.Write(buffer, offset, count);
        Sent(count);
    }

    public override void Write(ReadOnlySpan<byte> buffer)
    {
        inner.Write(buffer);
        Sent(buffer.Length);
    }

    public override async ValueTask WriteAsync(ReadOnlyMemory<byte> buffer, CancellationToken cancellationToken = default)
    {
        await inner.WriteAsync(buffer, cancellationToken);
        Sent(buffer.Length);
    }

    public override Task WriteAsync(byte[] buffer, int offset, int count, CancellationToken cancellationToken) =>
        WriteAsync(buffer.AsMemory(offset, count), cancellationToken).AsTask();

    public override void Flush() => inner.Flush();

    public override Task FlushAsync(CancellationToken cancellationToken) => inner.FlushAsync(cancellationToken);

    public override long Seek(long offset, SeekOrigin origin) => throw new NotSupportedException();

    public override void SetLength(long value) => throw new NotSupportedException();

    protected override void Dispose(bool disposing)
    {
        if (disposing)
        {
            inner.Dispose();
        }

        base.Dispose(disposing);
    }

    private int Received(int bytes)
    {
        counter.Received(bytes);
        MarkUsed();
        return bytes;
    }

    private void Sent(int bytes)
    {
        counter.Sent(bytes);
        MarkUsed();
    }

    // Reads and writes of one connection run at once under HTTP/2; the exchange makes sure it is counted once a phase.
    private void MarkUsed()
    {
        var phase = counter.Phase;
        if (Volatile.Read(ref _phase) != phase && Interlocked.Exchange(ref _phase, phase) != phase)
        {
            counter.Used();
        }
    }
}
