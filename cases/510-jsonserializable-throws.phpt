--TEST--
an exception from jsonSerialize() propagates: throws DomainException
--SETUP--
class Failing implements JsonSerializable {
    public function jsonSerialize(): mixed { throw new DomainException('cannot serialize'); }
}
--VALUE--
['ok' => 1, 'bad' => new Failing]
