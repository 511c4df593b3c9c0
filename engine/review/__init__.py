"""The review grid and the playbook review (issue 19): the same questions over every contract, judged against the team's standard positions."""
