using Google.Protobuf;
using Google.Protobuf.Reflection;
using LoadEngine;
using LoadEngine.Lessons;
using LoadEngine.Runs;
using LoadEngine.Targets.Described;

namespace GrpcBestPractices.Tests.EndToEnd;

/// <summary>
/// The lessons planned on a described method: each arm's plan calls it with the user's data, the streaming lesson finds the
/// bidirectional method of the same types, and what cannot apply is one sentence. Process-tagged: a descriptor set is
/// compiled by the protoc that Grpc.Tools ships, a process of its own.
/// </summary>
[Trait("Category", "Process")]
public sealed class LessonOnTargetPlanTests
{
    private const string GetPerformance = "performance.Monitor/GetPerformance";

    /// <summary>The built-in service's contract as a host describes it: the FileDescriptorSet of performance.proto.</summary>
    public static byte[] Performance { get; } = SetOf(global::Performance.PerformanceReflection.Descriptor);

    private static readonly DescribedTarget PerformanceTarget = DescribedTarget.FromDescriptorSetAsync(Performance, CancellationToken.None).GetAwaiter().GetResult();

    private static readonly DescribedTarget Workloads = DescribedTarget.FromDescriptorSetAsync(SetOf(global::Workloads.ContractFirst.WorkloadsReflection.Descriptor), CancellationToken.None).GetAwaiter().GetResult();

    private static readonly Uri Address = new("http://127.0.0.1:50051");

    [Fact]
    public void TheStreamingLessonCarriesTheSameRequestsOnTheBidirectionalMethodOfTheSameTypes()
    {
        var call = new LessonCall("monitor", Address, PerformanceTarget, GetPerformance, """{"clientName": "lesson {{.RequestNumber}}"}""");

        Assert.True(LessonPlan.TryCreate(LessonList.Streaming, 2, PlanLimits.Defaults, new EngineOptions(), call, out var plan, out var error), error);

        Assert.Equal("performance.Monitor/GetManyPerformanceStats", plan.Call!.StreamCall);
        Assert.Equal("performance.Monitor/GetManyPerformanceStats", plan.Plans["streaming-call"].Described!.Call);
        Assert.Equal(GetPerformance, plan.Plans["client-wrapper"].Described!.Call);
        Assert.All(plan.Plans.Values, arm =>
        {
            Assert.Equal(("monitor", call.Data), (arm.Described!.Target, arm.Described.Data));
            Assert.Same(PerformanceTarget.DescriptorSet, arm.Described.Descriptors);
            Assert.Equal(PerformanceTarget.Hash, arm.Described.DescriptorSet);
        });
        var record = plan.NewRecord();
        Assert.Equal(("monitor", GetPerformance, "performance.Monitor/GetManyPerformanceStats"), (record.Target, record.Call, record.StreamCall));
    }

    [Fact]
    public void ATargetWithoutSuchAStreamCannotRunTheStreamingLessonAndAStreamCallOfAnotherKindIsRefused()
    {
        var book = new LessonCall("books", Address, Workloads, "workloads.Workloads/GetBook", null);
        var wrongStream = new LessonCall("monitor", Address, PerformanceTarget, GetPerformance, null, StreamCall: "performance.Monitor/GetPerformance");

        Assert.False(LessonPlan.TryCreate(LessonList.Streaming, null, PlanLimits.Defaults, new EngineOptions(), book, out _, out var none));
        Assert.False(LessonPlan.TryCreate(LessonList.Streaming, null, PlanLimits.Defaults, new EngineOptions(), wrongStream, out _, out var wrong));

        Assert.Equal(
            "The streaming lesson carries workloads.Workloads/GetBook's requests on one bidirectional stream, and books has no bidirectional method taking " +
            "workloads.ItemRequest and answering workloads.Book; name one as streamCall if it has another.",
            none);
        Assert.Equal(
            "streamCall performance.Monitor/GetPerformance must be a bidirectional method taking performance.PerformanceStatusRequest and answering " +
            "performance.PerformanceStatusResponse, as performance.Monitor/GetPerformance does; it is unary, taking performance.PerformanceStatusRequest and answering performance.PerformanceStatusResponse.",
            wrong);
        // The other lessons need no stream.
        Assert.True(LessonPlan.TryCreate(LessonList.ReuseChannel, null, PlanLimits.Defaults, new EngineOptions(), book, out _, out var reuse), reuse);
    }

    [Theory]
    [InlineData("workloads.Workloads/StreamUsers", null, "The lessons compare ways of making unary calls, and workloads.Workloads/StreamUsers is server-streaming: name a unary method of books.")]
    [InlineData("workloads.Workloads/Nope", null, "The target has no method workloads.Workloads/Nope; it has workloads.Workloads/GetSmallInts")]
    [InlineData("workloads.Workloads/GetBook", """{"id": "seven"}""", "id")]
    public void AMethodTheLessonsCannotCallOrDataThatDoesNotFitIsOneSentence(string method, string? data, string sentence)
    {
        var call = new LessonCall("books", Address, Workloads, method, data);

        Assert.False(LessonPlan.TryCreate(LessonList.ReuseChannel, null, PlanLimits.Defaults, new EngineOptions(), call, out _, out var error));

        Assert.Contains(sentence, error);
        Assert.DoesNotContain(Environment.NewLine, error);
    }

    [Fact]
    public void OnATargetTheArmsThatLoadTheBuiltInServicesOwnListenersSayWhyTheyDoNotRun()
    {
        var h2c = new LessonCall("monitor", Address, PerformanceTarget, GetPerformance, null);
        var tls = h2c with { Address = new Uri("https://127.0.0.1:50052") };

        Assert.True(LessonPlan.TryCreate(LessonList.ReuseChannel, null, PlanLimits.Defaults, new EngineOptions(), tls, out var reuse, out _));
        Assert.True(LessonPlan.TryCreate(LessonList.KeepAlive, null, PlanLimits.Defaults, new EngineOptions(), h2c, out var plainKeepAlive, out _));
        Assert.True(LessonPlan.TryCreate(LessonList.KeepAlive, null, PlanLimits.Defaults, new EngineOptions(), tls, out var tlsKeepAlive, out _));
        Assert.True(LessonPlan.TryCreate(LessonList.StreamLimit, null, PlanLimits.Defaults, new EngineOptions(), h2c, out var streamLimit, out _));

        Assert.Equal(["client-wrapper", "factory-client", "initialized-client"], reuse.Plans.Keys.Order());
        Assert.Equal(
            "This arm loads the built-in service's big-dto workload on its own TLS listener; on monitor the strategy arms call performance.Monitor/GetPerformance, over TLS already.",
            reuse.Unavailable["tls-kept"]);
        Assert.Equal(["with-pings-tls", "without-pings-tls"], plainKeepAlive.Unavailable.Keys.Order());
        Assert.Equal("monitor is reached over h2c (http://127.0.0.1:50051), so the probe's channels are the h2c arms'.", plainKeepAlive.Unavailable["with-pings-tls"]);
        Assert.Equal(["with-pings", "without-pings"], tlsKeepAlive.Unavailable.Keys.Order());
        // No server delay on the user's method: the calls take what the service takes.
        Assert.All(streamLimit.Plans.Values, arm => Assert.Equal(((int?)1000, 0), (arm.Count, (arm.Called as BuiltInCall)?.DelayMs ?? 0)));
        Assert.StartsWith("Not judged: a pinged channel over TLS could not run here. monitor is reached over h2c",
            LessonVerdicts.Judge(LessonList.KeepAlive, plainKeepAlive.NewRecord() with { State = RunState.Completed })[0].Sentence);
    }

    /// <summary>A FileDescriptorSet of <paramref name="file"/> and every file it imports, as protoc --include_imports writes it.</summary>
    public static byte[] SetOf(FileDescriptor file)
    {
        var set = new FileDescriptorSet();
        var seen = new HashSet<string>();
        void Add(FileDescriptor each)
        {
            if (!seen.Add(each.Name))
            {
                return;
            }

            foreach (var dependency in each.Dependencies)
            {
                Add(dependency);
            }

            set.File.Add(FileDescriptorProto.Parser.ParseFrom(each.SerializedData));
        }

        Add(file);
        return set.ToByteArray();
    }
}
