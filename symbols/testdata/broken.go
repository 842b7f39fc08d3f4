package broken

func Good() {}

func Bad( {
	x :=
}

type Fine struct{}
