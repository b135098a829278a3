using System.Diagnostics;
using System.Net.Sockets;
using System.Text;

namespace GrpcBestPractices.Tests.Infrastructure;

/// <summary>
/// A viewer that asks for an event stream and then never reads: a raw loopback socket whose receive buffer is as small as
/// the kernel allows, so what the gateway sends backs up on the gateway's side, as it does behind a stalled client.
/// </summary>
public sealed class StalledViewer : IDisposable
{
    private readonly Socket _socket;

    private StalledViewer(Socket socket, string path)
    {
        _socket = socket;
        Path = path;
    }

    public string Path { get; }

    /// <summary>When it sent its request.</summary>
    public long AskedAt { get; private init; }

    public static async Task<StalledViewer> OpenAsync(Uri gateway, string path)
    {
        // Set before connecting, so the window the gateway is offered is small from the start.
        var socket = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp) { ReceiveBufferSize = 4096 };
        await socket.ConnectAsync(gateway.Host, gateway.Port);
        await socket.SendAsync(Encoding.ASCII.GetBytes($"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n"));
        return new StalledViewer(socket, path) { AskedAt = Stopwatch.GetTimestamp() };
    }

    /// <summary>
    /// Starts reading at last: what the gateway had sent, up to its end of the connection. Null when the connection was
    /// still open after <paramref name="timeout"/> (the gateway had not closed it).
    /// </summary>
    public async Task<string?> ReadUntilClosedAsync(TimeSpan timeout)
    {
        using var cancel = new CancellationTokenSource(timeout);
        var received = new MemoryStream();
        var buffer = new byte[65536];
        try
        {
            int read;
            while ((read = await _socket.ReceiveAsync(buffer, SocketFlags.None, cancel.Token)) > 0)
            {
                received.Write(buffer, 0, read);
            }
        }
        catch (OperationCanceledException)
        {
            return null;
        }
        catch (SocketException reset) when (reset.SocketErrorCode == SocketError.ConnectionReset)
        {
            // Closed by an abort: what was sent and not read is gone with it.
        }

        return Encoding.UTF8.GetString(received.ToArray());
    }

    public void Dispose() => _socket.Dispose();
}
