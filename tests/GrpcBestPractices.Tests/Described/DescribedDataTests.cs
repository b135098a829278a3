using Google.Protobuf;
using Google.Protobuf.WellKnownTypes;
using Grpc.Core;
using GrpcBestPractices.Tests.Described.Shop;
using LoadEngine.Strategies;
using LoadEngine.Targets.Described;

namespace GrpcBestPractices.Tests.Described;

/// <summary>
/// The descriptor path's data, on Described/shop.proto as generated classes (no protoc starts): requests from JSON in the
/// proto3 JSON mapping, ghz's templates, a sentence naming the field and its type for data that does not fit, the methods
/// a target lists, and a plan's call checked before a run.
/// </summary>
public sealed class DescribedDataTests
{
    private static readonly DescribedTarget Shop = DescribedTarget.FromGenerated([ShopReflection.Descriptor]);

    /// <summary>shop.v1.Orders/Place, a unary method whose Order has a field of every kind: what the data tests call.</summary>
    internal static readonly DescribedMethod Place = Shop.Find("shop.v1.Orders/Place");

    [Fact]
    public void FindTakesTheSlashAndTheDotFormAndKnowsEachMethodsKind()
    {
        Assert.Equal(["shop.v1.Orders/Place", "shop.v1.Orders/Track", "shop.v1.Orders/Upload", "shop.v1.Orders/Chat"], Shop.Methods.Select(method => method.Call));
        Assert.Same(Place, Shop.Find("shop.v1.Orders.Place"));
        Assert.Equal(
            [MethodType.Unary, MethodType.ServerStreaming, MethodType.ClientStreaming, MethodType.DuplexStreaming],
            Shop.Methods.Select(method => method.Kind));
        Assert.Equal(("shop.v1.Orders", "Chat"), (Shop.Find("shop.v1.Orders/Chat").Method.ServiceName, Shop.Find("shop.v1.Orders/Chat").Method.Name));
    }

    [Fact]
    public void AnUnknownMethodIsASentenceThatListsTheMethodsTheTargetHas()
    {
        var problem = Assert.Throws<TargetDescriptionException>(() => Shop.Find("shop.v1.Orders/Cancel"));

        Assert.Equal("The target has no method shop.v1.Orders/Cancel; it has shop.v1.Orders/Place, shop.v1.Orders/Track, shop.v1.Orders/Upload, shop.v1.Orders/Chat.", problem.Message);
    }

    [Fact]
    public void JsonInTheProto3MappingGivesTheMessageTheGeneratedClassesWouldBuild()
    {
        var expected = new Order
        {
            OrderId = "o-1",
            CustomerId = 9_007_199_254_740_993,
            TotalCents = 18_446_744_073_709_551_615,
            Priority = -3,
            Gift = true,
            Discount = 0.25,
            Signature = ByteString.CopyFromUtf8("signed"),
            Size = Size.Large,
            PlacedAt = Timestamp.FromDateTime(new DateTime(2025, 1, 2, 3, 4, 5, DateTimeKind.Utc)),
            Note = "ring twice",
            Coupon = 42,
            Hold = Duration.FromTimeSpan(TimeSpan.FromSeconds(1.5)),
            Items = { new Item { Sku = "a", Quantity = 2, Size = Size.Small }, new Item { Sku = "b", Quantity = 5_000_000_000 } },
            Stock = { ["a"] = 7, ["b"] = -1 },
            ByLine = { [1] = new Item { Sku = "a" } },
            Voucher = new Item { Sku = "v" },
            Tags = { "x", "y" },
        };
        const string camel = """
            {"orderId":"o-1","customerId":"9007199254740993","totalCents":"18446744073709551615","priority":-3,"gift":true,
             "discount":0.25,"signature":"c2lnbmVk","size":"SIZE_LARGE","placedAt":"2025-01-02T03:04:05Z","note":"ring twice",
             "coupon":"42","hold":"1.5s","items":[{"sku":"a","quantity":2,"size":"SIZE_SMALL"},{"sku":"b","quantity":"5000000000"}],
             "stock":{"a":"7","b":-1},"byLine":{"1":{"sku":"a"}},"voucher":{"sku":"v"},"tags":["x","y"]}
            """;
        const string original = """
            {"order_id":"o-1","customer_id":"9007199254740993","total_cents":"18446744073709551615","priority":"-3","gift":true,
             "discount":"0.25","signature":"c2lnbmVk","size":2,"placed_at":"2025-01-02T03:04:05Z","note":"ring twice",
             "coupon":42,"hold":"1.500s","items":[{"sku":"a","quantity":"2","size":1},{"sku":"b","quantity":5000000000}],
             "stock":{"a":7,"b":"-1"},"by_line":{"1":{"sku":"a"}},"voucher":{"sku":"v"},"tags":["x","y"]}
            """;

        Assert.Equal(expected, Order.Parser.ParseFrom(CallData.Parse(Place, camel).Request(0, "g0c0").ToByteArray()));
        Assert.Equal(expected, Order.Parser.ParseFrom(CallData.Parse(Place, original).Request(0, "g0c0").ToByteArray()));
    }

    [Fact]
    public void AnInt64AsANumberIsReadAsGoogleProtobufReadsIt()
    {
        // A JSON number beyond 2^53 is not exact in a double; JsonParser reads numbers as doubles, so send such ids as strings.
        var order = Order.Parser.ParseFrom(CallData.Parse(Place, """{"customerId":9007199254740993,"totalCents":12}""").Request(0, "g0c0").ToByteArray());

        Assert.Equal((9_007_199_254_740_992L, 12UL), (order.CustomerId, order.TotalCents));
    }

    [Fact]
    public void AOneofTakesEitherMemberAndNoDataIsAnEmptyRequest()
    {
        var card = Order.Parser.ParseFrom(CallData.Parse(Place, """{"card":"4111"}""").Request(0, "g0c0").ToByteArray());

        Assert.Equal(Order.PaymentOneofCase.Card, card.PaymentCase);
        Assert.Equal(new Order(), Order.Parser.ParseFrom(CallData.Parse(Place, null).Request(0, "g0c0").ToByteArray()));
    }

    [Fact]
    public void DataWithoutATemplateIsEncodedOnceAndAnArrayIsTakenInTurnOrSentWholeOnAStream()
    {
        var data = CallData.Parse(Place, """[{"orderId":"a"},{"orderId":"b"},{"orderId":"c"}]""");

        Assert.Same(data.Request(1, "g0c0"), data.Request(4, "g0c0"));
        Assert.Equal(["a", "b", "c", "a"], Enumerable.Range(0, 4).Select(number => Id(data.Request(number, "g0c0"))));
        Assert.Equal(["a", "b", "c"], data.Messages(7, "g0c0").Select(Id));
    }

    [Fact]
    public void TemplatesAreRenderedPerCallWithGhzsValues()
    {
        var data = CallData.Parse(Place, """
            {"orderId":"{{.RequestNumber}}-{{.WorkerID}}","note":"{{.UUID}} {{.UUID}} {{newUUID}}","card":"{{randomString 8}}",
             "customerId":"{{randomInt 5 7}}","coupon":"{{.TimestampUnixMilli}}","tags":["{{.TimestampUnix}}","{{.TimestampUnixNano}}","{{.MethodName}}"]}
            """);

        var before = DateTimeOffset.UtcNow;
        var order = Order.Parser.ParseFrom(data.Request(12, "g1c0").ToByteArray());
        var after = DateTimeOffset.UtcNow;

        Assert.Equal("12-g1c0", order.OrderId);
        var uuids = order.Note.Split(' ');
        Assert.True(uuids[0] == uuids[1] && uuids[1] != uuids[2] && uuids.All(uuid => Guid.TryParse(uuid, out _)), order.Note);
        Assert.Matches("^[A-Za-z0-9]{8}$", order.Card);
        Assert.InRange(order.CustomerId, 5, 6);
        Assert.InRange(order.Coupon!.Value, before.ToUnixTimeMilliseconds(), after.ToUnixTimeMilliseconds());
        Assert.InRange(long.Parse(order.Tags[0]), before.ToUnixTimeSeconds(), after.ToUnixTimeSeconds());
        Assert.Equal(19, order.Tags[1].Length);
        Assert.Equal("Place", order.Tags[2]);
        Assert.NotEqual(order.OrderId, Order.Parser.ParseFrom(data.Request(13, "g1c0").ToByteArray()).OrderId);
    }

    [Fact]
    public void GhzsRandomFunctionsKeepItsEdgeCases()
    {
        Assert.All(Enumerable.Range(0, 50).Select(_ => CallTemplate.RandomString(0).Length), length => Assert.InRange(length, 2, 16));
        Assert.All(Enumerable.Range(0, 50).Select(_ => CallTemplate.RandomInt(-5, 0)), value => Assert.Equal(0, value));
        Assert.All(Enumerable.Range(0, 50).Select(_ => CallTemplate.RandomInt(3, 5)), value => Assert.InRange(value, 3, 4));
    }

    [Fact]
    public void ATemplateOutsideAStringRendersToJsonFirstAsGhzDoes()
    {
        var order = Order.Parser.ParseFrom(CallData.Parse(Place, """{"priority": {{.RequestNumber}}}""").Request(3, "g0c0").ToByteArray());

        Assert.Equal(3, order.Priority);
    }

    [Theory]
    [InlineData("""{"orderId":"a","colour":"red"}""", "data field colour is not a field of shop.v1.Order; its fields are orderId, customerId, totalCents, priority, gift, discount, signature, size, placedAt, note, coupon, hold, items, stock, byLine, card, voucher, tags.")]
    [InlineData("""{"items":[{"sku":"a"},{"quantity":"lots"}]}""", "data field items[1].quantity was \"lots\"; it must be a 64-bit integer (a number, or a string of digits).")]
    [InlineData("""{"size":"HUGE"}""", "data field size was \"HUGE\"; it must be one of SIZE_UNSPECIFIED, SIZE_SMALL, SIZE_LARGE (or its number).")]
    [InlineData("""{"placedAt":"yesterday"}""", "data field placedAt was \"yesterday\"; it must be an RFC 3339 time such as \"2025-01-02T03:04:05Z\".")]
    [InlineData("""{"signature":"not base64!"}""", "data field signature was \"not base64!\"; it must be base64 text.")]
    [InlineData("""{"stock":{"a":"x"}}""", "data field stock was {\"a\":\"x\"}; it must be an object whose keys are a string and whose values are a 64-bit integer (a number, or a string of digits).")]
    [InlineData("""{"tags":"x"}""", "data field tags was \"x\"; it must be an array whose items are each a string.")]
    [InlineData("""{"coupon":true}""", "data field coupon was true; it must be a 64-bit integer (a number, or a string of digits), or null.")]
    [InlineData("""{"voucher":{"sku":1.5}}""", "data field voucher.sku was 1.5; it must be a string.")]
    [InlineData("""{"orderId":""", "data is not JSON at line 1, position 12: Expected depth to be zero at the end of the JSON payload. There is an open JSON object or array that should be closed; data must be strict JSON (RFC 8259): names and strings in double quotes, no comments, no trailing commas.")]
    [InlineData("""[{"orderId":"a"}, 3]""", "data is an array whose items must each be a JSON object (one message each).")]
    [InlineData("""{"orderId":"{{.Nope}}"}""", "data's template {{.Nope}} is not one this tool knows; it knows " + CallTemplate.Known + ".")]
    [InlineData("""{"orderId":"{{.RequestNumber"}""", "data has a template that is never closed: {{.RequestNumber\"} needs its }}.")]
    // The x keeps the rendering from being three digits (1 in about 240), which an integer field rightly takes.
    [InlineData("""{"priority":"x{{randomString 3}}"}""", "data field priority was \"xabc\"; it must be a 32-bit integer.")]
    public void DataThatDoesNotFitIsOneSentenceNamingTheFieldAndItsType(string json, string sentence)
    {
        var problem = Assert.Throws<TargetDescriptionException>(() => CallData.Parse(Place, json));

        // A random rendering is quoted as it came: compare the sentence's shape around it.
        Assert.Equal(sentence.Replace("\"xabc\"", "\"x…\""), System.Text.RegularExpressions.Regex.Replace(problem.Message, "was \"x[A-Za-z0-9]{3}\"", "was \"x…\""));
    }

    [Fact]
    public void TheRequestTemplateShowsEveryFieldWithNestedMessagesFilledIn()
    {
        var template = System.Text.Json.JsonDocument.Parse(Place.RequestTemplate).RootElement;

        Assert.Equal(
            ["orderId", "customerId", "totalCents", "priority", "gift", "discount", "signature", "size", "placedAt", "note", "coupon", "hold", "items", "stock", "byLine", "card", "tags"],
            template.EnumerateObject().Select(property => property.Name));
        Assert.Equal("1970-01-01T00:00:00Z", template.GetProperty("placedAt").GetString());
        // A list shows one element and a map one entry, a nested message's fields written out in each.
        Assert.Equal(["sku", "quantity", "size"], Assert.Single(template.GetProperty("items").EnumerateArray()).EnumerateObject().Select(property => property.Name));
        Assert.Equal("0", template.GetProperty("stock").GetProperty("key").GetString());
        Assert.Equal("SIZE_UNSPECIFIED", template.GetProperty("byLine").GetProperty("0").GetProperty("size").GetString());
        Assert.Equal([""], template.GetProperty("tags").EnumerateArray().Select(tag => tag.GetString()));
        Assert.Equal(
            new Order { Card = "", PlacedAt = new Timestamp(), Note = "", Coupon = 0, Hold = new Duration(), Items = { new Item() }, Stock = { ["key"] = 0 }, ByLine = { [0] = new Item() }, Tags = { "" } },
            Order.Parser.ParseFrom(CallData.Parse(Place, Place.RequestTemplate).Request(0, "g0c0").ToByteArray()));
    }

    [Fact]
    public void ARunNumbersItsWarmUpCallsAndThenItsMeasuredCallsSoNoTwoShareARequestNumber()
    {
        var target = new DescribedMethodTarget(Place, CallData.Parse(Place, """{"orderId": "n{{.RequestNumber}}"}"""), "g0c0", warmupCalls: 3);

        var warmup = Enumerable.Range(0, 3).Select(index => ((Order)target.Request(index, LoadEngine.Runs.RunPhase.Warmup)).OrderId);
        var measured = Enumerable.Range(0, 3).Select(index => ((Order)target.Request(index, LoadEngine.Runs.RunPhase.Measured)).OrderId);

        Assert.Equal(["n0", "n1", "n2", "n3", "n4", "n5"], [.. warmup, .. measured]);
    }

    [Fact]
    public void TheFirstAnswerOfARunIsKeptAsProto3Json()
    {
        var target = new DescribedMethodTarget(Place, CallData.Parse(Place, null), "g0c0");
        var observations = new RunObservations();

        target.Check(new Receipt { OrderId = "o-1", Items = 3 }, 0, observations);
        target.Check(new Receipt { OrderId = "o-2" }, 1, observations);

        Assert.Equal("""{ "orderId": "o-1", "items": "3" }""", observations.FirstAnswer);
    }

    [Theory]
    [InlineData(null, "shop.v1.Orders/Place", """{"orderId":"a"}""", null)]
    [InlineData("shop", "shop.v1.Orders.Place", null, null)]
    [InlineData("shop", "Place", null, "call was 'Place'; it must name a method as package.Service/Method, e.g. performance.Monitor/GetPerformance.")]
    [InlineData("shop", null, null, "target shop needs a call: the method to load, as package.Service/Method, e.g. performance.Monitor/GetPerformance.")]
    [InlineData(null, null, """{"orderId":"a"}""", "data is the request of a call; name the call it is for as package.Service/Method, e.g. performance.Monitor/GetPerformance.")]
    [InlineData(null, "shop.v1.Orders/Place", "{orderId", "data is not JSON at line 1, position 2: 'o' is an invalid start of a property name. Expected a '\"'; data must be strict JSON (RFC 8259): names and strings in double quotes, no comments, no trailing commas.")]
    [InlineData(null, "shop.v1.Orders/Place", "42", "data must be a JSON object, or an array of objects (a stream's messages).")]
    public void APlansCallIsCheckedForFormBeforeTheTargetIsDescribed(string? target, string? call, string? data, string? sentence)
    {
        var input = new RunPlanInput("client-wrapper", 10) { Target = target, Call = call, Data = data };

        var accepted = RunPlanRules.TryCreate(input, PlanLimits.Defaults, StrategyList.Names.ToList(), out var plan, out var error);

        Assert.Equal(sentence ?? "", accepted ? "" : error);
        if (accepted)
        {
            Assert.Equal((target, call, data), (plan.Described!.Target, plan.Described.Call, plan.Described.Data));
        }
    }

    [Fact]
    public void AStrategyThatCannotCallTheMethodIsRefusedWithTheReason()
    {
        var plan = new RunPlan { Strategy = "streaming-call", Called = new MethodCall { Call = "shop.v1.Orders/Place" } };

        Assert.Null(DescribedPlan.Refusal(StrategyList.Find("streaming-call")!, Shop.Find("shop.v1.Orders/Chat")));
        Assert.Null(DescribedPlan.Refusal(StrategyList.Find("client-wrapper")!, Place));
        Assert.Equal(
            "streaming-call carries every call as a message on one bidirectional stream, and shop.v1.Orders/Place is unary: name a bidirectional method, or another strategy.",
            DescribedPlan.Refusal(StrategyList.Find("streaming-call")!, Place));
        Assert.Equal("The plan calls shop.v1.Orders/Place but carries no descriptors of its target: the host describes the target before the run.", DescribedPlan.Problem(plan));
    }

    private static string Id(IMessage message) => Order.Parser.ParseFrom(message.ToByteArray()).OrderId;
}
