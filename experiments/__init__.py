"""The trente-lab command line, tournaments, statistics and reports."""
