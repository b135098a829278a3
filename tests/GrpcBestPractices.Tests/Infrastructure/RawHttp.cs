using System.Net.Sockets;
using System.Text;
using System.Text.Json;

namespace GrpcBestPractices.Tests.Infrastructure;

/// <summary>What the gateway answered to bytes HttpClient would never send: its status, headers and (de-chunked) body.</summary>
public sealed record RawResponse(int Status, string Headers, string Body)
{
    public bool IsProblem => Headers.Contains("Content-Type: application/problem+json", StringComparison.OrdinalIgnoreCase);

    public string Detail => JsonDocument.Parse(Body).RootElement.GetProperty("detail").GetString()!;

    public override string ToString() => $"{Status}{Environment.NewLine}{Headers}{Environment.NewLine}{Body}";
}

/// <summary>One request written byte by byte on a fresh loopback connection, read until the server closes it.</summary>
public static class RawHttp
{
    public static async Task<RawResponse> SendAsync(Uri server, byte[] request, TimeSpan timeout)
    {
        using var client = new TcpClient();
        using var cancel = new CancellationTokenSource(timeout);
        await client.ConnectAsync(server.Host, server.Port, cancel.Token);
        var stream = client.GetStream();
        try
        {
            await stream.WriteAsync(request, cancel.Token);
        }
        catch (IOException)
        {
            // The server may answer and close before it has read everything (a body over its limit): read what it said.
        }

        var received = new MemoryStream();
        var buffer = new byte[65536];
        try
        {
            int read;
            while ((read = await stream.ReadAsync(buffer, cancel.Token)) > 0)
            {
                received.Write(buffer, 0, read);
            }
        }
        catch (IOException) when (received.Length > 0)
        {
        }

        var text = Encoding.UTF8.GetString(received.ToArray());
        var split = text.IndexOf("\r\n\r\n", StringComparison.Ordinal);
        Assert.True(split > 0, $"no complete answer: '{text}'");
        var headers = text[..split];
        var body = text[(split + 4)..];
        if (headers.Contains("Transfer-Encoding: chunked", StringComparison.OrdinalIgnoreCase))
        {
            body = Dechunk(body);
        }

        return new RawResponse(int.Parse(headers.Split(' ')[1], System.Globalization.CultureInfo.InvariantCulture), headers, body);
    }

    /// <summary>A POST of <paramref name="body"/> to <paramref name="path"/> as JSON, asking the server to close after answering.</summary>
    public static byte[] Post(string path, byte[] body, string? contentType = "application/json", int? contentLength = null) =>
    [
        .. Encoding.ASCII.GetBytes(
            $"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n" +
            (contentType is null ? "" : $"Content-Type: {contentType}\r\n") +
            $"Content-Length: {contentLength ?? body.Length}\r\n\r\n"),
        .. body,
    ];

    private static string Dechunk(string chunked)
    {
        var result = new StringBuilder();
        var position = 0;
        while (true)
        {
            var end = chunked.IndexOf("\r\n", position, StringComparison.Ordinal);
            var size = Convert.ToInt32(chunked[position..end], 16);
            if (size == 0)
            {
                return result.ToString();
            }

            result.Append(chunked, end + 2, size);
            position = end + 2 + size + 2;
        }
    }
}
