package ignores

func racy() {}

func findings() {
	racy() // want `racy call \(checkthenact\)`

	racy() //idemkit:ignore checkthenact the table has a unique index and the error is handled

	//idemkit:ignore checkthenact only one worker runs this job
	racy()

	//idemkit:ignore attemptkey,checkthenact several checks at once
	racy()

	//idemkit:ignore attemptkey a directive for another check
	racy() // want `racy call`

	//idemkit:ignore checkthenact two lines above is too far

	racy() // want `racy call`

	/* want `//idemkit:ignore checkthenact has no reason, so it silences nothing` */ //idemkit:ignore checkthenact
	racy()                                                                           // want `racy call`

	//idemkit:ignored checkthenact not a directive
	racy() // want `racy call`
}

func unknown() {
	/* want `//idemkit:ignore names "checkthenac", which is no idemkit check \(known: checkthenact, attemptkey, releaseonerror, cacheresponse\); did you mean checkthenact\?` */ //idemkit:ignore checkthenac a typo

	//idemkit:ignore releaseonerorr a typo reported by the check it meant, not this one
}
