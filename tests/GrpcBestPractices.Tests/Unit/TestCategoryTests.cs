using System.Diagnostics;
using System.Net.Sockets;
using System.Reflection;
using System.Reflection.Emit;
using GrpcBestPractices.Tests.Infrastructure;
using GrpcBestPractices.Tests.WorkloadService;

namespace GrpcBestPractices.Tests.Unit;

/// <summary>
/// The fast loop (<c>--filter "Category!=Process"</c>) must start no process, browser, database or socket. This reads
/// every test's compiled body (its async state machine and lambdas included) and its fixtures, so a new test that
/// starts one without the trait fails here, not by slowing the fast loop down.
/// </summary>
public sealed class TestCategoryTests
{
    public const string Category = "Category";
    public const string Process = "Process";

    // What starts a process, a browser, a database server or a socket in these tests.
    private static readonly Type[] Starters =
    [
        typeof(AppProcess), typeof(CliProcess), typeof(NodeScript), typeof(BrowserScript), typeof(PostgresServer), typeof(Fakes.LoopbackHttpServer),
        typeof(RunningService), typeof(RawHttp), typeof(StoppedService), typeof(ToolRun), typeof(SystemFixture), typeof(Ports),
        typeof(Deploy.PublishedApps), typeof(ListeningScript), typeof(TestHostBond), typeof(Hostile.HostileReflectionServer), typeof(Hostile.HostileTool),
        typeof(System.Diagnostics.Process), typeof(Socket), typeof(TcpClient), typeof(TcpListener), typeof(SocketsHttpHandler),
    ];

    // AppProcess also names the repository's folders and build configuration, and TestHostBond its script, which start nothing.
    private static readonly HashSet<string> Harmless = ["get_RepositoryRoot", "get_Configuration", "get_Assembly", "get_Script"];

    [Fact]
    public void EveryTestThatStartsAProcessABrowserADatabaseOrASocketIsTaggedProcess()
    {
        var untagged = new List<string>();
        foreach (var type in typeof(TestCategoryTests).Assembly.GetTypes().Where(type => type is { IsClass: true, IsAbstract: false }))
        {
            var tests = type.GetMethods(BindingFlags.Public | BindingFlags.Instance).Where(method => method.GetCustomAttributes<FactAttribute>(inherit: true).Any()).ToList();
            if (tests.Count == 0 || IsTagged(type))
            {
                continue;
            }

            if (FixtureThatStarts(type) is { } fixture)
            {
                untagged.Add($"{type.Name} (its fixture {fixture.Name})");
                continue;
            }

            untagged.AddRange(tests.Where(test => !IsTagged(test) && StartsSomething(type, test) is not null).Select(test => $"{type.Name}.{test.Name} (calls {StartsSomething(type, test)})"));
        }

        Assert.True(untagged.Count == 0,
            $"Tag these with [Trait(\"{Category}\", \"{Process}\")], so the fast loop stays fast:{Environment.NewLine}{string.Join(Environment.NewLine, untagged)}");
    }

    [Fact]
    public void TheCheckSeesAProcessStartedInsideAnAsyncTestAndAFixtureThatStartsOne()
    {
        Assert.Equal("AppProcess.StartAsync", StartsSomething(typeof(Example), typeof(Example).GetMethod(nameof(Example.StartsTheServiceAsync))!));
        Assert.Null(StartsSomething(typeof(Example), typeof(Example).GetMethod(nameof(Example.ReadsAFolder))!));
        Assert.Equal(typeof(SystemFixture), FixtureThatStarts(typeof(Example)));
        Assert.False(IsTagged(typeof(Example)));
    }

    private static bool IsTagged(MemberInfo member) =>
        member.GetCustomAttributesData().Any(attribute => attribute.AttributeType == typeof(TraitAttribute)
            && attribute.ConstructorArguments is [{ Value: Category }, { Value: Process }]);

    private static Type? FixtureThatStarts(Type type)
    {
        var fixtures = type.GetConstructors().SelectMany(constructor => constructor.GetParameters()).Select(parameter => parameter.ParameterType);
        return fixtures.FirstOrDefault(fixture => Starters.Any(starter => starter.IsAssignableFrom(fixture))
            || fixture.GetMethods().Any(method => method.DeclaringType == fixture && StartsSomething(fixture, method) is not null));
    }

    /// <summary>
    /// The first starter the method calls, looking into the compiler's types nested in its class (state machines,
    /// lambdas) and into the class's own helpers it calls.
    /// </summary>
    private static string? StartsSomething(Type type, MethodInfo method) => StartsSomething(type, method, []);

    private static string? StartsSomething(Type type, MethodBase method, HashSet<MethodBase> seen)
    {
        if (!seen.Add(method))
        {
            return null;
        }

        var bodies = new List<MethodBase> { method };
        if (method.GetCustomAttribute<System.Runtime.CompilerServices.AsyncStateMachineAttribute>() is { } machine)
        {
            bodies.AddRange(machine.StateMachineType.GetMethods(BindingFlags.Instance | BindingFlags.NonPublic | BindingFlags.Public | BindingFlags.DeclaredOnly));
        }

        // Lambdas and local functions live in compiler types nested in the class, or beside the method; their names carry the method's.
        const BindingFlags Declared = BindingFlags.Instance | BindingFlags.Static | BindingFlags.NonPublic | BindingFlags.Public | BindingFlags.DeclaredOnly;
        bodies.AddRange(type.GetNestedTypes(BindingFlags.NonPublic).Where(nested => nested.Name.Contains('<'))
            .SelectMany(nested => nested.GetMethods(Declared)).Where(body => body.Name.Contains($"<{method.Name}>", StringComparison.Ordinal)));
        bodies.AddRange(type.GetMethods(Declared).Where(body => body.Name.Contains($"<{method.Name}>", StringComparison.Ordinal)));

        foreach (var called in bodies.SelectMany(Calls))
        {
            if (called.DeclaringType is { } declaring && Starters.Any(starter => starter == declaring || starter == declaring.DeclaringType) && !Harmless.Contains(called.Name))
            {
                return $"{declaring.Name}.{called.Name}";
            }

            if (called.DeclaringType is { } own && (own == type || own.DeclaringType == type || type.IsSubclassOf(own)) && StartsSomething(type, called, seen) is { } inner)
            {
                return inner;
            }
        }

        return null;
    }

    private static readonly Dictionary<short, OpCode> OpCodesByValue = typeof(OpCodes).GetFields(BindingFlags.Public | BindingFlags.Static)
        .Select(field => (OpCode)field.GetValue(null)!).ToDictionary(code => code.Value);

    /// <summary>Every method the body calls or constructs with, read from its IL.</summary>
    private static IEnumerable<MethodBase> Calls(MethodBase body)
    {
        var il = body.GetMethodBody()?.GetILAsByteArray() ?? [];
        var found = new List<MethodBase>();
        for (var position = 0; position < il.Length;)
        {
            var value = il[position] == 0xFE ? (short)(0xFE00 | il[position + 1]) : il[position];
            var code = OpCodesByValue[value];
            position += code.Size;
            if (code.OperandType == OperandType.InlineMethod)
            {
                var token = BitConverter.ToInt32(il, position);
                try
                {
                    found.Add(body.Module.ResolveMethod(token, body.DeclaringType?.GetGenericArguments(), body.IsGenericMethod ? body.GetGenericArguments() : null)!);
                }
                catch (ArgumentException)
                {
                }
            }

            position += code.OperandType switch
            {
                OperandType.InlineNone => 0,
                OperandType.ShortInlineBrTarget or OperandType.ShortInlineI or OperandType.ShortInlineVar => 1,
                OperandType.InlineVar => 2,
                OperandType.InlineI8 or OperandType.InlineR => 8,
                OperandType.InlineSwitch => 4 + 4 * BitConverter.ToInt32(il, position),
                _ => 4,
            };
        }

        return found;
    }

    /// <summary>Not a test class: an example for the check above to read.</summary>
    private sealed class Example(SystemFixture system)
    {
        public SystemFixture System { get; } = system;

        public async Task StartsTheServiceAsync()
        {
            await using var service = await AppProcess.StartAsync("PerformanceService");
        }

        public string ReadsAFolder() => Path.Combine(AppProcess.RepositoryRoot, "docs");
    }
}
