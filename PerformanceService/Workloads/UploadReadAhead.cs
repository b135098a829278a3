using GrpcBestPractices.ServiceDefaults;
using Microsoft.AspNetCore.Server.Kestrel.Core;
using Microsoft.AspNetCore.Server.Kestrel.Transport.Sockets;
using Microsoft.Extensions.Options;

namespace PerformanceService.Workloads;

/// <summary>
/// How much of an upload Kestrel may take in before the handler reads it: Workloads:UploadReadAheadBytes, by default two
/// chunks, so that with the chunk a gRPC handler is parsing and the copy it parses into an upload holds at most four
/// (issue 11's bound). Kestrel's defaults let each one hold far more, measured with bench/memory.mjs: an HTTP/2 stream's
/// receive window of 768 KiB, and on HTTP/1.1 a 1 MiB read buffer per connection (over TLS one more, for the decrypted
/// bytes), all of it filled whenever the client sends faster than the handler hashes. Over HTTP/2 the stream window is
/// what a client may send unanswered, so a smaller one costs throughput (docs/protocols.md, "Upload memory"); over HTTP/1.1 the
/// read buffers only pause reading from the socket, and TCP holds back the rest, outside the process.
/// </summary>
public static class UploadReadAhead
{
    public static WebApplicationBuilder BoundUploadReadAhead(this WebApplicationBuilder builder)
    {
        builder.Services.AddOptions<KestrelServerOptions>().Configure<IOptions<WorkloadOptions>>((kestrel, workloads) => Bound(kestrel, workloads.ValidOrNull()?.UploadReadAheadBytes));
        builder.Services.AddOptions<SocketTransportOptions>().Configure<IOptions<WorkloadOptions>>((sockets, workloads) => Bound(sockets, workloads.ValidOrNull()?.UploadReadAheadBytes));
        return builder;
    }

    /// <summary>
    /// An HTTP/2 stream's receive window (and the connection's, when that would be smaller), and the buffer between TLS
    /// and HTTP: decrypted bytes not yet read.
    /// </summary>
    public static void Bound(KestrelServerOptions kestrel, int? bytes)
    {
        if (bytes is { } readAhead)
        {
            kestrel.Limits.Http2.InitialStreamWindowSize = readAhead;
            kestrel.Limits.Http2.InitialConnectionWindowSize = Math.Max(kestrel.Limits.Http2.InitialConnectionWindowSize, readAhead);
            kestrel.Limits.MaxRequestBufferSize = readAhead;
        }
    }

    /// <summary>What a connection reads from its socket ahead of the protocol: an HTTP/1.1 body, or TLS records.</summary>
    public static void Bound(SocketTransportOptions sockets, int? bytes)
    {
        if (bytes is { } readAhead)
        {
            sockets.MaxReadBufferSize = readAhead;
        }
    }
}
