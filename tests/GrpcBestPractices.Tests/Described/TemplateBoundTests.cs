using Google.Protobuf;
using GrpcBestPractices.Tests.Described.Shop;
using LoadEngine.Runs;
using LoadEngine.Targets.Described;

namespace GrpcBestPractices.Tests.Described;

/// <summary>
/// A template is bounded before it renders: the most it can render (its literal text and each action's longest) may be
/// no more than data may hold, and a stream's messages together no more either; beyond that is one sentence, at once.
/// </summary>
public sealed class TemplateBoundTests
{
    private static readonly DescribedMethod Place = DescribedDataTests.Place;

    [Fact]
    public void ATemplateThatCouldRenderMoreThanDataMayHoldIsRefusedBeforeAnythingRenders()
    {
        var allocatedBefore = GC.GetAllocatedBytesForCurrentThread();

        var problem = Assert.Throws<TargetDescriptionException>(() => CallData.Parse(Place, """{"orderId":"{{randomString 1000000000}}"}"""));

        Assert.Equal(
            "data's template {{randomString 1000000000}} renders up to 1,000,000,000 characters; a rendered message may hold at most 65,536, as data may.",
            problem.Message);
        // Refused from the number alone: nothing near the gigabyte was rendered, or even asked for.
        Assert.InRange(GC.GetAllocatedBytesForCurrentThread() - allocatedBefore, 0, 1024 * 1024);
        Assert.Equal(InputBounds.MaxDataLength, CallTemplate.MaxRendered);
    }

    [Fact]
    public void ActionsThatFitAloneAreBoundedTogetherWithTheLiteralText()
    {
        var problem = Assert.Throws<TargetDescriptionException>(() => CallData.Parse(Place, """{"orderId":"{{randomString 40000}}{{randomString 30000}}"}"""));

        // {"orderId":" and "} are 14 characters of literal text.
        Assert.Equal("data's templates render a message of up to 70,014 characters; a rendered message may hold at most 65,536, as data may.", problem.Message);
    }

    [Fact]
    public void AStreamsMessagesAreBoundedTogetherAsDataIs()
    {
        var problem = Assert.Throws<TargetDescriptionException>(() =>
            CallData.Parse(Place, """[{"orderId":"{{randomString 40000}}"},{"orderId":"{{randomString 30000}}"},{"orderId":"b"}]"""));

        // Each message fits alone; 40,014 and 30,014 rendered, and the 15 characters of the last, do not together.
        Assert.Equal("data's templates render its 3 messages to up to 70,043 characters in all; rendered data may hold at most 65,536, as data may.", problem.Message);
    }

    [Fact]
    public void ATemplateWithinTheBoundRendersInFull()
    {
        var data = CallData.Parse(Place, """{"orderId":"{{randomString 65000}}"}""");

        Assert.Equal(65_000, Order.Parser.ParseFrom(data.Request(0, "g0c0").ToByteArray()).OrderId.Length);
    }

    [Theory]
    [InlineData("{{.RequestNumber}}", 20)]
    [InlineData("{{.WorkerID}}", 14)]
    [InlineData("{{.UUID}}", 36)]
    [InlineData("{{newUUID}}", 36)]
    [InlineData("{{.Timestamp}}", 25)]
    [InlineData("{{.TimestampUnixNano}}", 20)]
    [InlineData("{{.FullyQualifiedName}}", 20)]
    [InlineData("{{.ServiceName}}", 6)]
    [InlineData("{{.IsServerStreaming}}", 5)]
    [InlineData("{{randomString 0}}", 16)]
    [InlineData("{{randomString 12}}", 12)]
    [InlineData("{{randomInt -5 2147483647}}", 11)]
    [InlineData("id-{{.RequestNumber}}", 23)]
    public void EachActionCountsItsLongestRendering(string template, long longest)
    {
        var parsed = CallTemplate.Parse(template, Place);

        Assert.Equal(longest, parsed.MaxLength);
        foreach (var number in new[] { 0L, long.MaxValue, long.MinValue })
        {
            Assert.InRange(parsed.Render(new CallValues(number, DescribedMethodTarget.WorkerOf(new RunPlan { Strategy = "client-wrapper", Shard = new AgentShard(int.MinValue, 1) }), Place)).Length, 1, longest);
        }
    }
}
