namespace LoadEngine.Targets.Described;

/// <summary>A target that could not be described, a method it does not have, or data that does not fit: its Message is one sentence for the user.</summary>
public sealed class TargetDescriptionException(string message, Exception? inner = null) : Exception(message, inner);
