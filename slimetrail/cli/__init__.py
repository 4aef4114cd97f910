"""The ``slimetrail`` command line: one module per subcommand."""
