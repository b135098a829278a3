using System.IO.Pipelines;
using GrpcDependencies.Grpc;
using Performance;

namespace GrpcBestPractices.Tests.Unit;

public sealed class GrpcProtocolTests
{
    [Fact]
    public async Task FramedMessagesReadBackOneByOneThenEndCleanly()
    {
        var pipe = new Pipe();
        GrpcProtocol.WriteMessage(pipe.Writer, new PerformanceStatusRequest { ClientName = "first" });
        GrpcProtocol.WriteMessage(pipe.Writer, new PerformanceStatusRequest { ClientName = "second", DelayMs = 7 });
        await pipe.Writer.CompleteAsync();

        var first = await GrpcProtocol.ReadMessageAsync(pipe.Reader, PerformanceStatusRequest.Parser, 1024, default);
        var second = await GrpcProtocol.ReadMessageAsync(pipe.Reader, PerformanceStatusRequest.Parser, 1024, default);
        var end = await GrpcProtocol.ReadMessageAsync(pipe.Reader, PerformanceStatusRequest.Parser, 1024, default);

        Assert.Equal("first", first!.ClientName);
        Assert.Equal(7, second!.DelayMs);
        Assert.Null(end);
    }

    [Fact]
    public void FrameIsFlagThenBigEndianLengthThenPayload()
    {
        var frame = GrpcProtocol.Frame(new PerformanceStatusRequest { ClientName = "ab" });

        Assert.Equal(new byte[] { 0, 0, 0, 0, 4, 0x0A, 2, (byte)'a', (byte)'b' }, frame);
    }

    [Fact]
    public async Task StreamThatEndsInsideAMessageIsAnInternalError()
    {
        var pipe = new Pipe();
        await pipe.Writer.WriteAsync(new byte[] { 0, 0, 0, 0, 10, 1, 2 });
        await pipe.Writer.CompleteAsync();

        var error = await Assert.ThrowsAsync<RpcException>(() => GrpcProtocol.ReadMessageAsync(pipe.Reader, PerformanceStatusRequest.Parser, 1024, default).AsTask());

        Assert.Equal(StatusCode.Internal, error.StatusCode);
    }

    [Fact]
    public async Task MessageOverTheLimitIsRefusedBeforeItIsBuffered()
    {
        var pipe = new Pipe();
        await pipe.Writer.WriteAsync(new byte[] { 0, 0, 0x10, 0, 0 });

        var error = await Assert.ThrowsAsync<RpcException>(() => GrpcProtocol.ReadMessageAsync(pipe.Reader, PerformanceStatusRequest.Parser, 1024, default).AsTask());

        Assert.Equal(StatusCode.ResourceExhausted, error.StatusCode);
    }

    [Fact]
    public async Task CompressedMessagesAreUnimplemented()
    {
        var pipe = new Pipe();
        await pipe.Writer.WriteAsync(new byte[] { 1, 0, 0, 0, 0 });

        var error = await Assert.ThrowsAsync<RpcException>(() => GrpcProtocol.ReadMessageAsync(pipe.Reader, PerformanceStatusRequest.Parser, 1024, default).AsTask());

        Assert.Equal(StatusCode.Unimplemented, error.StatusCode);
    }

    [Theory]
    [InlineData("1S", 1000)]
    [InlineData("250m", 250)]
    [InlineData("2M", 120_000)]
    [InlineData("1H", 3_600_000)]
    [InlineData("1500000u", 1500)]
    public void TimeoutHeaderParsesEveryUnit(string header, double milliseconds)
    {
        Assert.True(GrpcProtocol.TryParseTimeout(header, out var timeout));
        Assert.Equal(milliseconds, timeout.TotalMilliseconds);
    }

    [Theory]
    [InlineData("")]
    [InlineData("10")]
    [InlineData("10x")]
    [InlineData("123456789m")]
    [InlineData("-1S")]
    public void MalformedTimeoutHeaderIsIgnored(string header) => Assert.False(GrpcProtocol.TryParseTimeout(header, out _));

    [Fact]
    public void TimeoutHeaderRoundTripsAndStaysWithinEightDigits()
    {
        Assert.Equal("1500m", GrpcProtocol.FormatTimeout(TimeSpan.FromMilliseconds(1500)));
        Assert.True(GrpcProtocol.FormatTimeout(TimeSpan.FromDays(3650)).Length <= 9);
    }

    [Theory]
    [InlineData("application/grpc", true)]
    [InlineData("application/grpc+proto", true)]
    [InlineData("application/grpc; charset=utf-8", true)]
    [InlineData("application/grpc-web", false)]
    [InlineData("application/json", false)]
    [InlineData(null, false)]
    public void GrpcContentTypeIsRecognised(string? contentType, bool expected) =>
        Assert.Equal(expected, GrpcProtocol.IsGrpcContentType(contentType));

    [Theory]
    [InlineData("delay_ms was -1; it must be between 0 and 60000.", "delay_ms was -1; it must be between 0 and 60000.")]
    [InlineData("100% sure", "100%25 sure")]
    [InlineData("naïve\n", "na%C3%AFve%0A")]
    public void StatusMessageEncodesOnlyWhatTheSpecRequires(string message, string header)
    {
        Assert.Equal(header, GrpcProtocol.EncodeMessage(message));
        Assert.Equal(message, GrpcProtocol.DecodeMessage(header));
    }
}
