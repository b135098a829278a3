using System.Security.Cryptography;
using Grpc.Core;
using LoadEngine.Calls;
using LoadEngine.Runs;
using LoadEngine.Targets;

namespace GrpcBestPractices.Tests.Unit;

/// <summary>
/// The server's words a run keeps for its failed calls: the first few distinct messages per status with their calls,
/// masked and escaped as they enter, and bounded however many calls fail and however long and varied the messages are.
/// </summary>
public sealed class StatusDetailsTests
{
    [Fact]
    public void EachStatusKeepsItsFirstDistinctMessagesWithTheirCallsAndCountsTheRestApart()
    {
        var details = new StatusDetails();
        for (var call = 0; call < 50; call++)
        {
            details.Record(StatusCode.FailedPrecondition, "tenant is suspended");
        }

        for (var message = 0; message < StatusDetails.MaxMessagesPerStatus + 3; message++)
        {
            details.Record(StatusCode.Unavailable, $"node {message} is down");
        }

        details.Record(StatusCode.Unavailable, "node 0 is down");
        details.Record(StatusCode.Internal, "");

        var kept = details.ToList();

        Assert.Equal(["FailedPrecondition", "Unavailable", "Internal"], kept.Select(detail => detail.Status));
        Assert.Equal((50L, 0L), (kept[0].Calls, kept[0].OtherMessageCalls));
        Assert.Equal([new StatusMessage("tenant is suspended", 50)], kept[0].Messages);
        var unavailable = kept[1];
        Assert.Equal(StatusDetails.MaxMessagesPerStatus + 4, unavailable.Calls);
        Assert.Equal(StatusDetails.MaxMessagesPerStatus, unavailable.Messages.Count);
        Assert.Equal(new StatusMessage("node 0 is down", 2), unavailable.Messages[0]);
        Assert.Equal(3, unavailable.OtherMessageCalls);
        Assert.Equal(
            [
                "50 × FailedPrecondition: 'tenant is suspended'",
                "2 × Unavailable: 'node 0 is down'",
                "1 × Unavailable: 'node 1 is down'",
                "1 × Unavailable: 'node 2 is down'",
                "1 × Unavailable: 'node 3 is down'",
                "1 × Unavailable: 'node 4 is down'",
                "3 × Unavailable: other messages (only the first 5 distinct ones are kept)",
                "1 × Internal: (no message)",
            ],
            StatusDetails.Lines(kept));
        Assert.Equal(
            "50 × FailedPrecondition: 'tenant is suspended'; 9 × Unavailable: 'node 0 is down', 7 of them with other messages; 1 × Internal: (no message)",
            StatusDetails.Describe(kept));
    }

    [Fact]
    public void AServerSendingANewHugeMessageOnEveryCallFromManyThreadsStaysWithinTheBounds()
    {
        const int Calls = 16_000;
        var details = new StatusDetails();
        var prefix = new string('x', 8 * 1024 - 16);

        Parallel.For(0, Calls, new ParallelOptions { MaxDegreeOfParallelism = 8 }, call =>
            details.Record((StatusCode)(1 + (call % 16)), $"{call:D8}{prefix}{call}"));

        var kept = details.ToList();
        Assert.Equal(16, kept.Count);
        Assert.Equal(Calls, kept.Sum(detail => detail.Calls));
        Assert.Equal(Calls, kept.Sum(detail => detail.Messages.Sum(message => message.Calls) + detail.OtherMessageCalls));
        Assert.All(kept, detail => Assert.Equal(StatusDetails.MaxMessagesPerStatus, detail.Messages.Count));
        Assert.All(kept.SelectMany(detail => detail.Messages), message =>
            Assert.EndsWith($"… (cut at {StatusDetails.MaxMessageLength} characters)", message.Message));
        var characters = kept.Sum(detail => detail.Messages.Sum(message => message.Message.Length));
        Assert.True(characters <= 16 * StatusDetails.MaxMessagesPerStatus * (StatusDetails.MaxMessageLength + 40), $"{characters} characters kept");
    }

    [Fact]
    public void MessagesThatDifferOnlyPastTheCutAreOne()
    {
        var details = new StatusDetails();
        var start = new string('m', StatusDetails.MaxMessageLength + 10);
        for (var call = 0; call < 100; call++)
        {
            details.Record(StatusCode.Internal, start + call);
        }

        var detail = Assert.Single(details.ToList());
        Assert.Equal(100, Assert.Single(detail.Messages).Calls);
        Assert.Equal(0, detail.OtherMessageCalls);
    }

    [Fact]
    public void AFailedCallsMessageIsMaskedAndEscapedBeforeTheRunKeepsIt()
    {
        var secret = "sk-" + Convert.ToHexString(RandomNumberGenerator.GetBytes(16));
        var text = TargetText.For([new("x-api-key", secret)]);
        var error = new RpcException(new Status(StatusCode.PermissionDenied, $"key {secret} is revoked\u001b[2J\u202e"));
        var recorder = new RunRecorder(1);

        var failure = CallFailure.From(error, text)!.Value;
        recorder.RecordFailure(failure.Status, failure.Detail);

        var message = Assert.Single(Assert.Single(recorder.StatusDetails).Messages).Message;
        Assert.Equal("key *** is revoked\\u001b[2J\\u202e", message);
    }

    [Fact]
    public void AgentsDetailsMergeIntoOneRunsWithinTheSameBounds()
    {
        IReadOnlyList<StatusDetail> Part(params string[] messages) =>
            [new StatusDetail("Unavailable", messages.Length + 2, [.. messages.Select(message => new StatusMessage(message, 1))], 2)];

        var merged = StatusDetails.Merge([Part("a", "b", "c"), Part("a", "d", "e", "f", "g")]);

        var detail = Assert.Single(merged);
        Assert.Equal(12, detail.Calls);
        Assert.Equal(new StatusMessage("a", 2), detail.Messages[0]);
        Assert.Equal(StatusDetails.MaxMessagesPerStatus, detail.Messages.Count);
        Assert.Equal(12, detail.Messages.Sum(message => message.Calls) + detail.OtherMessageCalls);
    }
}
