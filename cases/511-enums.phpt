--TEST--
a backed enum is written as its value
--SETUP--
enum Suit: string { case Hearts = 'H'; case Spades = 'S'; }
enum Size: int { case Small = 1; case Large = 3; }
--VALUE--
[Suit::Hearts, Suit::Spades, Size::Large]
--EXPECT--
["H","S",3]
