"""The services under the web layer: matches (seats, live state, turn checks), computer moves
and analyses (one interface, two backends) and their admission.  Nothing here knows HTTP."""
