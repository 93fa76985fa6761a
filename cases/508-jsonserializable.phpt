--TEST--
JsonSerializable: jsonSerialize()'s value is encoded instead
--SETUP--
class Money implements JsonSerializable {
    private $cents;
    private $currency;
    public function __construct($cents, $currency) { $this->cents = $cents; $this->currency = $currency; }
    public function jsonSerialize(): mixed {
        return ['amount' => $this->cents / 100, 'currency' => $this->currency];
    }
}
--VALUE--
[new Money(1050, 'EUR'), new Money(5, 'USD')]
--EXPECT--
[{"amount":10.5,"currency":"EUR"},{"amount":0.05,"currency":"USD"}]
