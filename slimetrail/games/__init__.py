"""One folder per game family; each registers its games in ``slimetrail.core.registry``."""
