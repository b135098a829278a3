using System.Text.Json;
using Google.Protobuf;
using Grpc.Core;
using Interop.Inventory;
using LoadEngine;
using LoadEngine.Calls;
using LoadEngine.Clients;
using LoadEngine.Lessons;
using LoadEngine.Runs;
using LoadEngine.Targets;
using LoadEngine.Targets.Described;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Options;

namespace GrpcBestPractices.Tests.Unit;

/// <summary>
/// Text from a target as the engine keeps it: the metadata values the tool sent, masked in every form the target can echo
/// them in; control characters, line separators and bidi overrides escaped; and the length bounded.
/// </summary>
public sealed class TargetTextTests
{
    // Printable ASCII a JSON writer escapes (+, =, <, >, &, ', ", \), so each JSON form of the value must be masked.
    private const string Token = "s3cr3t+t0k3n/with=signs&<b>'q\"u\\ote";

    private static readonly TargetText Text = TargetText.For([new("authorization", "Bearer " + Token)]);

    [Fact]
    public void AnEchoedValueIsMaskedInTheFirstAnswerInEveryFormItsJsonTakes()
    {
        var observations = new RunObservations(text: Text);
        var echo = new ItemReply { Item = new ItemRequest { Sku = "a" }, Metadata = { ["authorization"] = "Bearer " + Token, ["x-token"] = Token } };

        observations.Answered(echo, new JsonFormatter(JsonFormatter.Settings.Default).Format);

        var answer = observations.FirstAnswer!;
        var metadata = JsonDocument.Parse(answer).RootElement.GetProperty("metadata");
        Assert.Equal(TargetText.Masked, metadata.GetProperty("authorization").GetString());
        Assert.Equal(TargetText.Masked, metadata.GetProperty("x-token").GetString());
        Assert.DoesNotContain("s3cr3t", answer);
    }

    [Fact]
    public void AStatusDetailQuotingTheTokenIsMaskedAndEscapedAsItEntersTheEngine()
    {
        var failure = CallFailure.From(new RpcException(new Status(StatusCode.Unauthenticated, $"token {Token} has expired\u001b[2J\nsee the log")), Text)!.Value;

        Assert.Equal("token *** has expired\\u001b[2J\\nsee the log", failure.Detail);
        Assert.Equal("token *** has expired\\u001b[2J", failure.Described);
    }

    [Fact]
    public void AFailedLessonCallSaysTheDetailMaskedToo()
    {
        var failed = new LessonFailedException("keep-alive", new Uri("http://127.0.0.1:7101"), 6, 2, new RpcException(new Status(StatusCode.PermissionDenied, "denied for Bearer " + Token)), Text);

        Assert.Equal("denied for ***", failed.Detail);
        Assert.Equal("keep-alive: a call to http://127.0.0.1:7101/ failed with PermissionDenied: denied for ***", failed.Message);
    }

    [Fact]
    public void ABinaryValueIsMaskedAsItsBase64InJsonAndAsTheTextItDecodesTo()
    {
        var base64 = Convert.ToBase64String("binary-secret-42"u8);
        var text = TargetText.For([new("trace-bin", base64)]);
        var echo = new JsonFormatter(JsonFormatter.Settings.Default).Format(new ItemReply { BinaryMetadata = { ["trace-bin"] = ByteString.CopyFromUtf8("binary-secret-42") } });

        Assert.Equal("*** and ***", text.Clean($"{base64} and binary-secret-42"));
        Assert.Equal("{ \"binaryMetadata\": { \"trace-bin\": \"***\" } }", text.Clean(echo));
    }

    [Fact]
    public void ValuesTooShortToBeSecretsAreLeftAsTheyAreAndSoIsEverythingElse()
    {
        var text = TargetText.For([new("x-tenant", "42"), new("x-debug", "true"), new("authorization", "Basic dXNlcjpwYXNzd29yZA==")]);

        // "Basic" is one part of the value, too short to be a secret; the credentials are masked.
        Assert.Equal("{ \"tenant\": \"42\", \"debug\": true, \"auth\": \"***\", \"scheme\": \"Basic\", \"user\": \"***\" }",
            text.Clean("{ \"tenant\": \"42\", \"debug\": true, \"auth\": \"Basic dXNlcjpwYXNzd29yZA==\", \"scheme\": \"Basic\", \"user\": \"dXNlcjpwYXNzd29yZA==\" }"));
        Assert.Equal("x-tenant 42", TargetText.For([new("x-tenant", "42")]).Clean("x-tenant 42"));
    }

    [Fact]
    public void EscapeSequencesBidiOverridesAndOtherControlsComeOutAsVisibleEscapes()
    {
        var escaped = TargetText.Escape("\u001b]0;pwned\u0007\u001b[2J|abc\u202edcba|\u2066x\u2069|\u009b31m|\u007f|\u2028|\t|\ud800|ok 😀 é");

        Assert.Equal("\\u001b]0;pwned\\u0007\\u001b[2J|abc\\u202edcba|\\u2066x\\u2069|\\u009b31m|\\u007f|\\u2028|\\t|\\ud800|ok 😀 é", escaped);
        Assert.DoesNotContain('\u001b', escaped);
        Assert.DoesNotContain('\u202e', escaped);
    }

    [Fact]
    public void ADescribingSentenceEscapesWhatTheTargetPutInItWhoeverWroteIt()
    {
        // As ReflectionDescriber words a refusal: the error_message is the target's.
        var problem = new TargetDescriptionException("The target's server reflection refused its list of services: NotFound, \u001b]0;pwned\u0007\u001b[2J" + new string('x', 10_000) + ".");

        Assert.StartsWith("The target's server reflection refused its list of services: NotFound, \\u001b]0;pwned\\u0007\\u001b[2Jxxx", problem.Message);
        Assert.EndsWith("… (cut at 4,096 characters)", problem.Message);
    }

    [Fact]
    public void EscapedJsonStaysJsonWithTheSameValues()
    {
        var escaped = TargetText.Escape("{\"message\":\"line one\nline two \u001b[2J \u202e\"}");

        Assert.Equal("line one\nline two \u001b[2J \u202e", JsonDocument.Parse(escaped).RootElement.GetProperty("message").GetString());
    }

    [Fact]
    public void TextIsCutAtItsBoundNeverInsideAnEscapeOrAPair()
    {
        Assert.Equal("abcdefghij", TargetText.Escape("abcdefghij", 10));
        Assert.Equal("abcdefghi… (cut at 10 characters)", TargetText.Escape("abcdefghi\u001b", 10));
        Assert.Equal("abcdefghi… (cut at 10 characters)", TargetText.Escape("abcdefghi😀", 10));
        Assert.Equal(new string('x', TargetText.MaxLength) + "… (cut at 1,024 characters)", TargetText.Escape(new string('x', 5000)));
    }

    [Fact]
    public void EachEnginesMaskIsMadeFromItsOwnConnectionsMetadata()
    {
        static TargetText MaskOf(string value)
        {
            var services = new ServiceCollection().AddLogging().AddLoadEngine();
            services.AddSingleton(Options.Create(new EngineOptions { Connection = new TargetConnection { Metadata = [new("authorization", value)] } }));
            using var provider = services.BuildServiceProvider();
            return provider.GetRequiredService<TargetText>();
        }

        var first = MaskOf("first-target-secret");
        var second = MaskOf("second-target-secret");

        Assert.Equal("*** second-target-secret", first.Clean("first-target-secret second-target-secret"));
        Assert.Equal("first-target-secret ***", second.Clean("first-target-secret second-target-secret"));
    }
}
