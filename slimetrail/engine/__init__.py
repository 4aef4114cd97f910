"""Engine protocols: UGI (:mod:`slimetrail.engine.ugi`)."""
