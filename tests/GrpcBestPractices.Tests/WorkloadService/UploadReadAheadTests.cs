using System.Buffers.Binary;
using System.Net.Sockets;
using Microsoft.AspNetCore.Server.Kestrel.Core;
using Microsoft.AspNetCore.Server.Kestrel.Transport.Sockets;
using Microsoft.Extensions.Options;
using PerformanceService.Workloads;
using Workloads;

namespace GrpcBestPractices.Tests.WorkloadService;

/// <summary>
/// Workloads:UploadReadAheadBytes: how much of an upload Kestrel takes in before the handler reads it, by default two
/// chunks, so an upload holds at most four (issue 11); set on Kestrel's options, and announced to HTTP/2 clients.
/// </summary>
[Trait("Category", "Process")]
public sealed class UploadReadAheadTests
{
    private const int SettingsFrame = 0x4;
    private const int InitialWindowSize = 0x4;

    [Fact]
    public void ByDefaultTwoChunksAreReadAheadOnEveryKindOfConnection()
    {
        var kestrel = new KestrelServerOptions();
        var sockets = new SocketTransportOptions();

        UploadReadAhead.Bound(kestrel, new WorkloadOptions().UploadReadAheadBytes);
        UploadReadAhead.Bound(sockets, new WorkloadOptions().UploadReadAheadBytes);

        Assert.Equal(2 * WorkloadData.FileChunkBytes, WorkloadOptions.DefaultUploadReadAheadBytes);
        Assert.Equal(WorkloadOptions.DefaultUploadReadAheadBytes, kestrel.Limits.Http2.InitialStreamWindowSize);
        Assert.Equal(WorkloadOptions.DefaultUploadReadAheadBytes, kestrel.Limits.MaxRequestBufferSize);
        Assert.Equal(WorkloadOptions.DefaultUploadReadAheadBytes, sockets.MaxReadBufferSize);
        // Kestrel's own 1 MiB: room for eight uploads' windows on one connection.
        Assert.Equal(1024 * 1024, kestrel.Limits.Http2.InitialConnectionWindowSize);
    }

    [Fact]
    public void AReadAheadLargerThanTheConnectionWindowWidensItAndAnInvalidOneLeavesKestrelsDefaults()
    {
        var wide = new KestrelServerOptions();
        var untouched = new KestrelServerOptions();
        var sockets = new SocketTransportOptions();

        UploadReadAhead.Bound(wide, 4 * 1024 * 1024);
        UploadReadAhead.Bound(untouched, null);
        UploadReadAhead.Bound(sockets, null);

        Assert.Equal(4 * 1024 * 1024, wide.Limits.Http2.InitialConnectionWindowSize);
        Assert.Equal(768 * 1024, untouched.Limits.Http2.InitialStreamWindowSize);
        Assert.Equal(1024 * 1024, untouched.Limits.MaxRequestBufferSize);
        Assert.Equal(1024 * 1024, sockets.MaxReadBufferSize);
    }

    [Theory]
    [InlineData(65535, false)]
    [InlineData(65536, true)]
    [InlineData(WorkloadOptions.DefaultUploadReadAheadBytes, true)]
    [InlineData(16 * 1024 * 1024, true)]
    [InlineData(16 * 1024 * 1024 + 1, false)]
    public void TheReadAheadIsBetween64KiBAnd16MiB(int bytes, bool valid)
    {
        var result = new DataAnnotationValidateOptions<WorkloadOptions>(null).Validate(null, new WorkloadOptions { UploadReadAheadBytes = bytes });

        Assert.Equal(valid, result.Succeeded);
        if (!valid)
        {
            Assert.Contains("Workloads:UploadReadAheadBytes must be between 65536 (64 KiB) and 16777216 (16 MiB).", result.FailureMessage);
        }
    }

    [Theory]
    [InlineData(null, WorkloadOptions.DefaultUploadReadAheadBytes)]
    [InlineData("786432", 786432)]
    public async Task TheServiceAnnouncesItAsEveryHttp2StreamsReceiveWindow(string? setting, int announced)
    {
        await using var service = await RunningService.StartAsync(setting is null ? [] : ["--Workloads:UploadReadAheadBytes", setting]);

        Assert.Equal(announced, await InitialWindowSizeAsync(service.H2c));
    }

    /// <summary>The SETTINGS_INITIAL_WINDOW_SIZE the server's first SETTINGS frame carries, read off a bare h2c connection.</summary>
    private static async Task<int?> InitialWindowSizeAsync(Uri h2c)
    {
        using var tcp = new TcpClient();
        await tcp.ConnectAsync(h2c.Host, h2c.Port);
        var stream = tcp.GetStream();
        using var timeout = new CancellationTokenSource(TimeSpan.FromSeconds(10));
        // The client preface, then an empty SETTINGS frame.
        await stream.WriteAsync("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"u8.ToArray(), timeout.Token);
        await stream.WriteAsync(new byte[] { 0, 0, 0, SettingsFrame, 0, 0, 0, 0, 0 }, timeout.Token);
        var header = new byte[9];
        while (true)
        {
            await stream.ReadExactlyAsync(header, timeout.Token);
            var payload = new byte[(header[0] << 16) | (header[1] << 8) | header[2]];
            await stream.ReadExactlyAsync(payload, timeout.Token);
            var isAck = (header[4] & 0x1) != 0;
            if (header[3] != SettingsFrame || isAck)
            {
                continue;
            }

            for (var at = 0; at + 6 <= payload.Length; at += 6)
            {
                if (BinaryPrimitives.ReadUInt16BigEndian(payload.AsSpan(at)) == InitialWindowSize)
                {
                    return (int)BinaryPrimitives.ReadUInt32BigEndian(payload.AsSpan(at + 2));
                }
            }

            return null;
        }
    }
}
