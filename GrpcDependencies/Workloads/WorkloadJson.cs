using System.Text.Json;
using System.Text.Json.Serialization;
using Newtonsoft.Json.Serialization;
using Workloads.Model;

namespace Workloads;

/// <summary>
/// System.Text.Json, source-generated, camelCase both ways (the web defaults): the 2019 study's client read camelCase
/// with case-sensitive default options and silently bound nothing; this context binds every field, and the checksum proves it.
/// </summary>
[JsonSourceGenerationOptions(JsonSerializerDefaults.Web)]
[JsonSerializable(typeof(SmallInts))]
[JsonSerializable(typeof(Book))]
[JsonSerializable(typeof(BookList))]
[JsonSerializable(typeof(BigDto))]
[JsonSerializable(typeof(BigDtoList))]
[JsonSerializable(typeof(LogRecord))]
[JsonSerializable(typeof(WriteAck))]
[JsonSerializable(typeof(UserList))]
public sealed partial class WorkloadJsonContext : JsonSerializerContext;

/// <summary>Newtonsoft.Json with the same camelCase names, on both sides.</summary>
public static class WorkloadNewtonsoft
{
    public static Newtonsoft.Json.JsonSerializerSettings Settings { get; } = Configure(new());

    public static Newtonsoft.Json.JsonSerializerSettings Configure(Newtonsoft.Json.JsonSerializerSettings settings)
    {
        settings.ContractResolver = new CamelCasePropertyNamesContractResolver();
        settings.DateTimeZoneHandling = Newtonsoft.Json.DateTimeZoneHandling.Utc;
        settings.DateParseHandling = Newtonsoft.Json.DateParseHandling.DateTime;
        return settings;
    }
}
