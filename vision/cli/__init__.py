"""The ``cardref`` command line: one module per subcommand, imported only when used."""
