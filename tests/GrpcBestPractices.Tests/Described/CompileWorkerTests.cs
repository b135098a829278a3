using LoadEngine.Targets.Described;

namespace GrpcBestPractices.Tests.Described;

/// <summary>
/// The compiler runs in a worker process of its own (LoadEngine.Compiler), never in the process that describes, and the
/// worker exits once idle. Alone in its collection: it watches a worker this test host shares with every other test that
/// describes in-process, which run before it.
/// </summary>
[Collection(CompileWorkerCollection.Name)]
[Trait("Category", "Process")]
public sealed class CompileWorkerTests
{
    [Fact]
    public async Task TheCompilerRunsInAWorkerOfItsOwnThatExitsWhenIdle()
    {
        await DescribedTarget.FromDescriptorSetAsync(CompiledSetLifetimeTests.UniqueSet(), CancellationToken.None);
        var worker = CSharpCompiler.WorkerProcessId;

        // Roslyn never loads into this process: its code and heap stay with the worker.
        Assert.DoesNotContain(AppDomain.CurrentDomain.GetAssemblies(), assembly => assembly.GetName().Name!.StartsWith("Microsoft.CodeAnalysis", StringComparison.Ordinal));
        Assert.NotNull(worker);
        var deadline = DateTime.UtcNow.AddSeconds(90);
        while (IsRunning(worker.Value) && DateTime.UtcNow < deadline)
        {
            await Task.Delay(250);
        }

        Assert.False(IsRunning(worker.Value), $"the compile worker {worker} is still running long after its last compile");
    }

    [Fact]
    public async Task ADescribeStoppedMidCompileHasRemovedItsFolderWhenItAnswers()
    {
        // A CLI exits as soon as its describe answers: a folder deleted only afterwards would be left behind. Alone in its
        // collection, so any folder of this process is this describe's.
        var folders = $"loadtest-described-{Environment.ProcessId}-*";
        bool AnyFolder() => Directory.EnumerateDirectories(Path.GetTempPath(), folders).Any();
        Assert.False(AnyFolder(), "a describe folder of this process was there before the test");
        using var stop = new CancellationTokenSource();

        var describing = DescribedTarget.FromDescriptorSetAsync(CompiledSetLifetimeTests.UniqueSet(), stop.Token);
        while (!AnyFolder() && !describing.IsCompleted)
        {
            await Task.Delay(1);
        }

        // Stopped while protoc or the compiler works in the folder.
        await stop.CancelAsync();
        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => describing);

        Assert.False(AnyFolder(), "the stopped describe answered before its folder was deleted");
    }

    private static bool IsRunning(int processId)
    {
        try
        {
            using var process = System.Diagnostics.Process.GetProcessById(processId);
            return !process.HasExited;
        }
        catch (ArgumentException)
        {
            return false;
        }
    }
}

[CollectionDefinition(Name, DisableParallelization = true)]
public sealed class CompileWorkerCollection
{
    public const string Name = "The compile worker, alone";
}
