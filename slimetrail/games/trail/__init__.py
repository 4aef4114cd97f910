"""The Slime Trail family: Slimetrail (Rastros), hex Slime Trail, Square Slime Trail."""
